"""A JSON answer held to the TypedDict that types it, at run time: `assert_shape(value, Hint)`.

mypy proves that the code building an answer names the type's keys; this proves that what a real
run answers is that shape — every required key there, no key the type does not name, each
value of its type (a `Literal` one of its values, `X | None`, lists and dicts of a type, unions
of TypedDicts: the one that fits; a datetime or date, or its ISO text as JSON gives it). `Any` and `object` hold anything. Nothing of the project is
imported here."""

from __future__ import annotations

import datetime as dt
import types
import typing
from typing import Any, Literal, Union

_SCALARS: dict[type, tuple[type, ...]] = {float: (int, float), int: (int,), str: (str,)}


def shape_errors(
    value: object, hint: Any, where: str = "answer", bound: dict | None = None
) -> list[str]:
    """What in `value` does not fit `hint` (empty: it fits), each said with its path. `bound`:
    the type variables of the generic TypedDict being walked (`Listing[Row]`: T is Row)."""
    bound = bound or {}
    if isinstance(hint, typing.TypeVar):
        hint = bound.get(hint, Any)
    if hint is Any or hint is object:
        return []
    if typing.is_typeddict(hint):
        return _typed_dict(value, hint, where, {})
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is not None and typing.is_typeddict(origin):  # a generic one, parameterized
        given = [bound.get(a, Any) if isinstance(a, typing.TypeVar) else a for a in args]
        inner = {**bound, **dict(zip(origin.__parameters__, given, strict=True))}
        return _typed_dict(value, origin, where, inner)
    if origin is Literal:  # of its value and its type: True is not 1
        if any(type(value) is type(a) and value == a for a in args):
            return []
        return [f"{where}: {value!r} is none of {list(args)}"]
    if origin in (Union, types.UnionType):
        tried = [shape_errors(value, arg, where, bound) for arg in args]
        if any(not errors for errors in tried):
            return []
        return min(tried, key=len)  # the alternative it comes closest to
    if origin is list:
        if not isinstance(value, list):
            return [f"{where}: {type(value).__name__} where a list is typed"]
        return [
            e
            for n, item in enumerate(value)
            for e in shape_errors(item, args[0], f"{where}[{n}]", bound)
        ]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{where}: {type(value).__name__} where a dict is typed"]
        return [
            e
            for key, item in value.items()
            for e in shape_errors(key, args[0], f"{where} key", bound)
            + shape_errors(item, args[1], f"{where}[{key!r}]", bound)
        ]
    if hint in (dt.datetime, dt.date):  # in JSON, its ISO text (or str(): a space for the T)
        if type(value) is hint or (isinstance(value, str) and _iso(value, hint)):
            return []
        return [f"{where}: {value!r} is no {hint.__name__} nor its ISO text"]
    if hint in (dict, list):  # unparameterized: any keys and values
        fits = isinstance(value, hint)
        return [] if fits else [f"{where}: {type(value).__name__} where a {hint.__name__} is typed"]
    if hint is type(None):
        return [] if value is None else [f"{where}: {value!r} where None is typed"]
    if hint is bool:
        return [] if isinstance(value, bool) else [f"{where}: {value!r} is not a bool"]
    if hint in _SCALARS:
        fits = isinstance(value, _SCALARS[hint]) and not isinstance(value, bool)
        return [] if fits else [f"{where}: {value!r} is not {hint.__name__}"]
    raise TypeError(f"shape_errors: no rule for {hint!r} (at {where})")


def _iso(text: str, hint: type) -> bool:
    """ISO text of a `hint` (a date's text is no datetime's, nor a datetime's a date's)."""
    if (hint is dt.datetime) != (len(text) > len("2026-12-06")):
        return False
    try:
        hint.fromisoformat(text)  # type: ignore[attr-defined]
    except ValueError:
        return False
    return True


def _typed_dict(value: object, hint: Any, where: str, bound: dict) -> list[str]:
    if not isinstance(value, dict):
        return [f"{where}: {type(value).__name__} where {hint.__name__} is typed"]
    hints = typing.get_type_hints(hint)
    errors = [f"{where}: {hint.__name__} lacks {k!r}" for k in _required(hint) - set(value)]
    errors += [f"{where}: {k!r} is no key of {hint.__name__}" for k in set(value) - set(hints)]
    for key in hints.keys() & set(value):
        errors += shape_errors(value[key], hints[key], f"{where}[{key!r}]", bound)
    return errors


def _required(hint: Any) -> set[str]:
    """The keys a TypedDict requires. Python 3.11 counts a `NotRequired[...]` key as required
    where its module postpones annotations (`from __future__ import annotations`), so each
    key's own marker is read here too."""
    marked = typing.get_type_hints(hint, include_extras=True)
    required = set(hint.__required_keys__)
    for key, inner in marked.items():
        if typing.get_origin(inner) is typing.NotRequired:
            required.discard(key)
        elif typing.get_origin(inner) is typing.Required:
            required.add(key)
    return required


def assert_shape(value: object, hint: Any) -> None:
    errors = shape_errors(value, hint)
    assert not errors, "\n".join(errors[:20])

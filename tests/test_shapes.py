"""tests/shapes.py, the run-time check of an answer against its TypedDict: what it lets through and
what it names (a checker that passed everything would make every test using it say nothing)."""

from __future__ import annotations

import datetime as dt
from typing import Any, Generic, Literal, NotRequired, TypedDict, TypeVar

import pytest

from shapes import assert_shape, shape_errors


class Weak(TypedDict):
    kind: Literal["weak"]
    score: float


class Judged(TypedDict):
    kind: Literal["judge"]
    verdict: Literal["supported", "partly"] | None


class Entry(TypedDict):
    ref: str
    count: int
    seen: bool
    notes: list[Weak | Judged]
    extra: dict[str, Any]
    at: dt.datetime | None
    stopped: NotRequired[str]


GOOD: dict = {
    "ref": 'עע"מ 1234/05',
    "count": 2,
    "seen": False,
    "notes": [{"kind": "weak", "score": 1}, {"kind": "judge", "verdict": None}],
    "extra": {"anything": [1, "two"]},
    "at": None,
}


def test_an_answer_of_the_shape_passes_with_or_without_its_optional_key():
    assert_shape(GOOD, Entry)
    assert_shape({**GOOD, "stopped": "at 500"}, Entry)
    assert_shape([GOOD], list[Entry])
    moment = dt.datetime(2026, 12, 6, 13, 5, tzinfo=dt.UTC)
    for at in (moment, moment.isoformat(), str(moment)):  # as Python, as JSON gives it
        assert_shape({**GOOD, "at": at}, Entry)


@pytest.mark.parametrize(
    "change, said",
    [
        ({"count": None}, "['count']: None is not int"),
        ({"count": True}, "['count']: True is not int"),
        ({"seen": 0}, "['seen']: 0 is not a bool"),
        ({"surprise": 1}, "'surprise' is no key of Entry"),
        ({"stopped": 3}, "['stopped']: 3 is not str"),
        ({"notes": [{"kind": "weak"}]}, "Weak lacks 'score'"),
        ({"notes": [{"kind": "judge", "verdict": "maybe"}]}, "'maybe' is none of"),
        ({"notes": {"kind": "weak"}}, "['notes']: dict where a list is typed"),
        ({"extra": [1]}, "['extra']: list where a dict is typed"),
        ({"at": "yesterday"}, "['at']: 'yesterday' is no datetime nor its ISO text"),
    ],
)
def test_what_does_not_fit_is_named_with_its_path(change, said):
    errors = shape_errors({**GOOD, **change}, Entry)
    assert any(said in e for e in errors), errors


def test_a_missing_key_is_named_and_a_missing_optional_one_is_not():
    value = {k: v for k, v in GOOD.items() if k != "ref"}
    assert shape_errors(value, Entry) == ["answer: Entry lacks 'ref'"]


Row = TypeVar("Row")


class Listed(TypedDict, Generic[Row]):
    count: int
    items: list[Row]


def test_a_generic_typeddict_holds_its_rows_to_the_type_it_is_given():
    assert_shape({"count": 1, "items": [GOOD]}, Listed[Entry])
    errors = shape_errors({"count": 1, "items": [{"kind": "weak"}]}, Listed[Weak])
    assert errors == ["answer['items'][0]: Weak lacks 'score'"]
    assert_shape({"count": 0, "items": [1, "x"]}, Listed)  # unparameterized: any rows


class Partial(TypedDict, total=False):
    said: str
    day: dt.date


class Outer(TypedDict, Generic[Row]):
    inner: Listed[Row]


def test_a_partial_typeddict_a_nested_generic_and_what_a_literal_or_a_date_is():
    assert_shape({}, Partial)
    assert_shape({"said": "x", "day": dt.date(2026, 12, 6)}, Partial)
    assert_shape({"day": "2026-12-06"}, Partial)  # as JSON gives it
    moment = dt.datetime(2026, 12, 6, 13, 5)
    for day in (moment, str(moment), "6.12.2026"):  # a datetime is no date
        assert shape_errors({"day": day}, Partial), day
    assert shape_errors({**GOOD, "at": "2026-12-06"}, Entry)  # nor a date a datetime
    assert_shape({"inner": {"count": 1, "items": [GOOD]}}, Outer[Entry])
    assert shape_errors({"inner": {"count": 1, "items": [{"kind": "weak"}]}}, Outer[Weak])
    assert shape_errors({**GOOD, "notes": [{"kind": "weak", "score": True}]}, Entry)
    assert shape_errors(1, Literal[True]) and shape_errors(True, Literal[1])


def test_a_type_it_has_no_rule_for_is_an_error_of_the_test_not_a_pass():
    with pytest.raises(TypeError, match="no rule"):
        shape_errors(b"x", bytes)

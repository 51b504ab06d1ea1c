"""The environment the settings come from, checked: a `LEGAL_AI_*` variable that is no setting
(a misspelling, named with the nearest real one), a malformed value said in one line, and an
environment file read by systemd's rules for `EnvironmentFile=` (so that `legal-ai doctor
--env-file` sees what the units see; docs/deployment.md, "The environment file")."""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .config import Settings, env_names
from .errors import InvalidInput

PREFIX = "LEGAL_AI_"
# Read by the project's own development tools (the test suite, scripts/), not by legal-ai: not
# settings, and not misspellings of one.
TOOL_VARIABLES = ("LEGAL_AI_SHARED_DATA", "LEGAL_AI_SHARED", "LEGAL_AI_FUZZ_SCALE")
TOOL_PREFIXES = ("LEGAL_AI_TEST_", "LEGAL_AI_AUDIT_")


def _known() -> dict[str, str]:
    """Every variable a setting is read from (upper case) -> its field name."""
    return {n.upper(): name for name, names in env_names().items() for n in names}


def unknown(environ: Mapping[str, str]) -> list[tuple[str, str | None]]:
    """The `LEGAL_AI_*` variables of `environ` that no setting reads (pydantic-settings reads
    them case-insensitively, so `legal_ai_home` is a setting), each with the nearest real
    setting's variable (difflib) or None; sorted by name."""
    known = _known()
    prefixed = sorted(n for n in known if n.startswith(PREFIX))
    tails = [n.removeprefix(PREFIX) for n in prefixed]
    found = []
    for name in sorted(environ):
        upper = name.upper()
        if not upper.startswith(PREFIX) or upper in known or upper in TOOL_VARIABLES:
            continue
        if upper.startswith(TOOL_PREFIXES):
            continue
        near = difflib.get_close_matches(upper.removeprefix(PREFIX), tails, n=1, cutoff=0.6)
        found.append((name, PREFIX + near[0] if near else None))
    return found


def unknown_line(name: str, nearest: str | None) -> str:
    """One line for a variable no setting reads."""
    hint = f"did you mean {nearest}? " if nearest else ""
    return f"{name} is not a setting of legal-ai ({hint}docs/configuration.md lists them); ignored"


def _expects(error: Mapping[str, Any]) -> str:
    kind, message = error["type"], str(error["msg"])
    said = {
        "int_parsing": "a whole number",
        "int_from_float": "a whole number",
        "float_parsing": "a number",
        "bool_parsing": "true or false",
        "path_type": "a path",
    }
    if kind in said:
        return said[kind]
    for lead in ("Value error, ", "Input should be "):
        message = message.removeprefix(lead)
    return message


def problem(exc: ValidationError, environ: Mapping[str, str]) -> str:
    """A malformed setting as one line: each variable, its value and what it takes."""
    variables = _variables_of(environ)
    parts = []
    for error in exc.errors():
        where = str(error["loc"][0]) if error["loc"] else "?"
        variable = variables.get(where.lower(), where.upper())
        value = str(error.get("input", ""))
        shown = value if len(value) <= 40 else value[:37] + "..."
        parts.append(f"{variable}={shown!r}: expects {_expects(error)}")
    return "malformed setting " + "; ".join(parts) + " (docs/configuration.md)"


def bad_fields(exc: ValidationError) -> set[str]:
    """The field names (or aliases, lower case) whose values failed."""
    return {str(e["loc"][0]).lower() for e in exc.errors() if e["loc"]}


def _variables_of(environ: Mapping[str, str]) -> dict[str, str]:
    """A field's name or alias (lower case) -> the variable `environ` gave it under."""
    given = {k.upper(): k for k in environ}
    found = {}
    for name, names in env_names().items():
        present = [given[n.upper()] for n in names if n.upper() in given]
        chosen = present[0] if present else names[-1]
        for key in (name, *names):
            found[key.lower()] = chosen
    return found


def without(environ: Mapping[str, str], fields: set[str]) -> dict[str, str]:
    """`environ` without the variables of `fields` (names or aliases, lower case): their
    defaults hold (the doctor goes on checking the rest)."""
    dropped = {
        n.upper()
        for name, names in env_names().items()
        if name in fields or any(n.lower() in fields for n in names)
        for n in names
    }
    return {k: v for k, v in environ.items() if k.upper() not in dropped}


def read(environ: Mapping[str, str]) -> Settings:
    """The settings of `environ` (Settings.from_environ); a malformed one is InvalidInput (exit
    code 2) saying `problem`'s line."""
    try:
        return Settings.from_environ(environ)
    except ValidationError as exc:
        raise InvalidInput(problem(exc, environ)) from None


# -- systemd's EnvironmentFile= ------------------------------------------------------------------

_WHITESPACE = " \t\r\n"
_SHELL_ESCAPED = '"\\`$'


@dataclass
class EnvFile:
    """What systemd takes from an environment file: `values` (the last assignment of a name
    wins) and `ignored`, a line per assignment it drops (a name that is not a variable's name,
    such as `export X`, or a line without `=`)."""

    values: dict[str, str] = field(default_factory=dict)
    ignored: list[str] = field(default_factory=list)


def parse_env_file(text: str) -> EnvFile:
    """`text` read by the rules of systemd.exec(5), EnvironmentFile=: empty lines and lines
    whose first non-blank character is `#` or `;` are comments; `NAME=value`, blanks around the
    name dropped; an unquoted value keeps its inner blanks and quotes, loses its leading and
    trailing blanks, and a backslash keeps the character after it (a backslash at the end of a
    line joins the next); `'...'` is verbatim; in `"..."` a backslash escapes `"`, `\\`, `` ` ``
    and `$` and is kept before any other character; a quoted part may span lines. No `$NAME`
    is expanded and `export` is not a keyword."""
    result = EnvFile()
    i, n, line = 0, len(text), 1
    while i < n:
        while i < n and text[i] in _WHITESPACE:
            line += text[i] == "\n"
            i += 1
        if i >= n:
            break
        start_line = line
        if text[i] in "#;":  # a comment, to the end of its line (never continued)
            while i < n and text[i] != "\n":
                i += 1
            continue
        key_start = i
        while i < n and text[i] not in "=\n":
            i += 1
        key = text[key_start:i].rstrip(_WHITESPACE)
        if i >= n or text[i] == "\n":
            result.ignored.append(f"line {start_line}: {key[:40]!r} has no `=`: not an assignment")
            continue
        i += 1  # the `=`
        value, i, line = _value(text, i, line)
        if _is_name(key):
            result.values[key] = value
        else:
            result.ignored.append(
                f"line {start_line}: {key[:40]!r} is not a variable's name (write NAME=value, "
                "without `export`)"
            )
    return result


def _value(text: str, i: int, line: int) -> tuple[str, int, int]:
    """The value starting at `i` (after the `=`), the index after its line, the line count.
    Before a value starts (and after a closing quote) blanks are skipped and a quote opens;
    inside an unquoted run quotes are plain characters."""
    out: list[str] = []
    n = len(text)
    unquoted = False  # inside an unquoted run (else: where a value or a quote may start)
    trailing: int | None = None  # where the unquoted run's trailing blanks start
    while i < n:
        c = text[i]
        i += 1
        if c in "\r\n":
            line += c == "\n"
            break
        if c == "\\":  # the next character as it is; a newline after it is dropped
            if i < n and text[i] != "\n":
                out.append(text[i])
            elif i < n:
                line += 1
            i += 1
            unquoted, trailing = True, None
        elif unquoted:
            if c in " \t":
                trailing = len(out) if trailing is None else trailing
            else:
                trailing = None
            out.append(c)
        elif c in "'\"":
            i, line = _quoted(text, i, line, out, c)
        elif c not in " \t":
            unquoted = True
            out.append(c)
    if unquoted and trailing is not None:
        del out[trailing:]
    return "".join(out), i, line


def _quoted(text: str, i: int, line: int, out: list[str], quote: str) -> tuple[int, int]:
    """The quoted part after its opening `quote`: the index after its closing one."""
    n = len(text)
    while i < n and text[i] != quote:
        c = text[i]
        line += c == "\n"
        if quote == '"' and c == "\\" and i + 1 < n:
            nxt = text[i + 1]
            if nxt in _SHELL_ESCAPED:
                out.append(nxt)
            elif nxt == "\n":
                line += 1
            else:
                out.extend((c, nxt))
            i += 2
            continue
        out.append(c)
        i += 1
    return i + 1, line


def _is_name(key: str) -> bool:
    return (
        bool(key)
        and not key[0].isdigit()
        and all(c.isascii() and (c.isalnum() or c == "_") for c in key)
    )


def service_environ(path: Path, process: Mapping[str, str] | None = None) -> tuple[dict, EnvFile]:
    """The environment a unit with `EnvironmentFile=path` runs under, as far as legal-ai reads
    it: the file's variables, and of this process's only what legal-ai does not read (PATH,
    HOME, LANG...): no `LEGAL_AI_*`, no setting's unprefixed name, no provider key, no libpq
    `PG*` from the shell running the command."""
    parsed = parse_env_file(path.read_text(encoding="utf-8"))
    read_here = {n.upper() for names in env_names().values() for n in names}
    process = os.environ if process is None else process
    kept = {
        k: v
        for k, v in process.items()
        if not (
            k.upper().startswith((PREFIX, "PG"))
            or k.upper() in read_here
            or k.upper().endswith("_API_KEY")
        )
    }
    return kept | parsed.values, parsed

"""The learning loop's closed vocabularies and input checks (one place; the database's CHECK
constraints say the same)."""

from __future__ import annotations

import datetime as dt
import re
from typing import Literal, overload

from ..errors import InvalidInput
from ..text.blocks import BLOCKS
from ..text.case_numbers import normalize_case_number
from ..text.hebrew import clean_text, fold_quotes

APPEAL_TYPES = (
    "permit",
    "change_of_use",
    "plan",
    "betterment_levy",
    "compensation_197",
    "procedural",
)
OUTCOMES = ("accepted", "rejected", "partially_accepted", "remanded")
PRACTICE_AREAS = ("planning", "betterment_levy", "compensation")
FEEDBACK_CATEGORIES = (
    "missing_content",
    "wrong_tone",
    "wrong_structure",
    "factual_error",
    "style",
    "other",
)
CURATOR_TAGS = {
    "סגנון": "style",
    "מבנה": "structure",
    "לקסיקון משפטי": "legal_lexicon",
    "טבלאי": "tabular",
}

# A committee case number: a court/committee word (ערר, בל"מ, עע"מ …), an optional district in
# parentheses, and number/year. The full string is the key (ערר 1042/23 ≠ בל"מ 1042/23).
_CASE_RE = re.compile(
    r'^[א-ת]{2,6}(?:"[א-ת])?(?: [א-ת]{2,8})?(?: \([א-ת][א-ת\- ]{1,20}\))? \d{1,6}/(?:\d{2}|\d{4})$'
)


def case_number(raw: str | None) -> str:
    """The canonical case number (`normalize_case_number`, the one spelling every layer keys
    on), refused unless it has the shape of a committee case number."""
    value = normalize_case_number(raw if isinstance(raw, str) else "")
    if not _CASE_RE.match(value):
        raise InvalidInput(
            f"malformed case number {raw!r}: write the full number with its kind, e.g. "
            "'ערר (מרכז) 1042/23', 'ערר 8021/23' or 'בל\"מ 1042/23'",
            code="case.malformed_number",
            field="case_number",
        )
    return value


def _field(what: str) -> str:
    """The input a refusal names `what` concerns, as a field's name ("lesson text": lesson_text)."""
    return what.replace(" ", "_")


@overload
def free_text(
    value: object, what: str, *, required: Literal[True] = True, max_chars: int = 20_000
) -> str: ...
@overload
def free_text(
    value: object, what: str, *, required: bool, max_chars: int = 20_000
) -> str | None: ...
def free_text(
    value: object, what: str, *, required: bool = True, max_chars: int = 20_000
) -> str | None:
    """A free text the chair or an agent wrote (feedback, a lesson, a reason, a quote), cleaned
    like stored text (no NUL, zero-width or bidi characters) and bounded; InvalidInput names
    `what` when it is not text, empty (when required) or too long."""
    if value is None or (isinstance(value, str) and not clean_text(value).strip()):
        if required:
            raise InvalidInput(
                f"the {what} is empty; write it", code="text.empty", field=_field(what)
            )
        return None
    if not isinstance(value, str):
        raise InvalidInput(f"the {what} must be text", code="text.not_text", field=_field(what))
    text = clean_text(value).strip()
    if len(text) > max_chars:
        raise InvalidInput(
            f"the {what} is {len(text)} characters; keep it to {max_chars}",
            code="text.too_long",
            field=_field(what),
        )
    return text


@overload
def choice(
    value: str | None, allowed: tuple[str, ...], what: str, *, required: Literal[True]
) -> str: ...
@overload
def choice(
    value: str | None, allowed: tuple[str, ...], what: str, *, required: bool = False
) -> str | None: ...
def choice(
    value: str | None, allowed: tuple[str, ...], what: str, *, required: bool = False
) -> str | None:
    """`value` if it is one of `allowed`; None when not given, or InvalidInput naming the
    choices when it is `required` (then never None) or unknown."""
    if value is None or value == "":
        if required:
            raise InvalidInput(
                f"{what} is required; choose one of: {', '.join(allowed)}",
                code="choice.required",
                field=_field(what),
            )
        return None
    if value not in allowed:
        raise InvalidInput(
            f"unknown {what} {value!r}; choose one of: {', '.join(allowed)}",
            code="choice.unknown",
            field=_field(what),
        )
    return value


_TRUE, _FALSE = ("true", "1", "yes", "on"), ("false", "0", "no", "off")


def flag(value: bool | str | None, what: str) -> bool | None:
    """A yes/no a caller gave (a form's `true`/`false`, `1`/`0`, `yes`/`no`, `on`/`off`, or a
    bool); None when not given."""
    if value is None or isinstance(value, bool):
        return value
    said = str(value).strip().lower()
    if said in _TRUE or said in _FALSE:
        return said in _TRUE
    raise InvalidInput(f"{what} {value!r}: write true or false", code="choice.unknown")


def block(value: str | None) -> str | None:
    return choice(value, BLOCKS, "block")


_MONTHS = {
    "ינואר": 1,
    "פברואר": 2,
    "מרץ": 3,
    "מרס": 3,
    "אפריל": 4,
    "מאי": 5,
    "יוני": 6,
    "יולי": 7,
    "אוגוסט": 8,
    "ספטמבר": 9,
    "אוקטובר": 10,
    "נובמבר": 11,
    "דצמבר": 12,
}
_DATE_RE = re.compile(r"(\d{1,2})\s+ב?(" + "|".join(_MONTHS) + r")\s+(\d{4})")
_NUMERIC_DATE_RE = re.compile(r"(\d{1,2})[./](\d{1,2})[./](\d{4})")


def decision_date(*texts: str) -> dt.date | None:
    """The first date written in the given texts (`14 בנובמבר 2023` or `14.11.2023`)."""
    for text in texts:
        for match in _DATE_RE.finditer(text or ""):
            day, month, year = int(match.group(1)), _MONTHS[match.group(2)], int(match.group(3))
            try:
                return dt.date(year, month, day)
            except ValueError:
                continue
        for match in _NUMERIC_DATE_RE.finditer(text or ""):
            try:
                return dt.date(int(match.group(3)), int(match.group(2)), int(match.group(1)))
            except ValueError:
                continue
    return None


def iso_date(value: str | None, what: str = "date") -> dt.date | None:
    if not value:
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise InvalidInput(
            f"{what} {value!r} is not a date; write it as YYYY-MM-DD",
            code="date.invalid",
            field=what,
        ) from None


def practice_area_from(header: str, subject: str) -> str | None:
    """The committee named in the header: the planning committee, or the committee for
    compensation and betterment levy (then a §197 claim is compensation, else the levy)."""
    text = fold_quotes(header)
    levy = "compensation" if re.search(r"197", subject or "") else "betterment_levy"
    # The appeals committee names itself; the respondent local committee ("הוועדה המקומית
    # לתכנון ובנייה") appears in every header and must not decide it.
    committee = re.search(r"ועדת\s+(?:ה)?ערר\b[^\n]{0,40}", text)
    if committee:
        named = committee.group(0)
        if re.search(r"פיצויים|היטל(?:י)?\s+השבחה", named):
            return levy
        if re.search(r"לתכנון\s+ובני[י]?ה", named):
            return "planning"
    if re.search(r"פיצויים|היטל(?:י)?\s+השבחה", text):
        return levy
    if re.search(r"לתכנון\s+ובני[י]?ה", text):
        return "planning"
    return None

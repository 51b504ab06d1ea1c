"""Words derived from where a text comes from: the court a proceeding type is heard in (to
prefill a ruling's court from its citation) and the Hebrew term for a principle drawn from a
source (הלכה / כלל פרשני / עיקרון, as search hits name them)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..text.case_numbers import COURT_SPELLINGS, normalize_case_number
from .contract import ShownTerm

SUPREME = "בית המשפט העליון"
DISTRICT = "בית המשפט המחוזי"
APPEALS_COMMITTEE = "ועדת ערר"
# Proceeding type (the case number's prefix, canonical spelling) -> the court that hears it.
# Types heard in more than one instance (ה"פ, ת"א, ע"ע, בל"מ) are left out: no guess.
PROCEEDING_COURTS = {
    'בג"ץ': SUPREME,
    'עע"מ': SUPREME,
    'ע"א': SUPREME,
    'רע"א': SUPREME,
    'בר"מ': SUPREME,
    'ע"פ': SUPREME,
    'רע"פ': SUPREME,
    'דנ"א': SUPREME,
    'דנ"פ': SUPREME,
    'דנג"ץ': SUPREME,
    'עת"מ': DISTRICT,
    'עמ"נ': DISTRICT,
    'ע"מ': DISTRICT,
    "ערר": APPEALS_COMMITTEE,
    "ערר מנהלי": APPEALS_COMMITTEE,
}

# Words in a court's name that make it the Supreme Court or a district court (also sitting as
# the court for administrative matters).
HIGHER_COURT_WORDS = ("העליון", 'בג"ץ', "מחוזי", "לעניינים מינהליים", "לעניינים מנהליים")
HALACHA = "הלכה"
INTERPRETIVE_RULE = "כלל פרשני"
PRINCIPLE = "עיקרון"


def court_of_case_number(case_number: str | None) -> str | None:
    """The court a case number's proceeding type is heard in (`עע"מ 1234/05` -> the Supreme
    Court), or None when the type does not say."""
    if not case_number:
        return None
    text = normalize_case_number(case_number)
    for prefix in sorted(PROCEEDING_COURTS, key=len, reverse=True):
        if text.startswith(prefix) and not text[len(prefix) : len(prefix) + 1].isalpha():
            return PROCEEDING_COURTS[prefix]
    head = text.split(" ", 1)[0]
    return PROCEEDING_COURTS.get(COURT_SPELLINGS.get(head, ""))


def _court(court: str | None, case_number: str | None) -> str:
    """The court as given, or the one its case number's proceeding type is heard in."""
    return " ".join((court or "").split()) or court_of_case_number(case_number) or ""


def binding_of(court: str | None, case_number: str | None) -> bool | None:
    """Whether a ruling binds as precedent (07 INV-LRN7), derived at ingest when the item does
    not say: a ruling of the Supreme Court or of a district court does; an appeals committee's
    decision, or another court's ruling, does not; None when neither its court nor its case
    number's proceeding type tells (`עע"מ 1234/05` -> the Supreme Court -> binding)."""
    court = _court(court, case_number)
    if not court:
        return None
    if court.startswith(APPEALS_COMMITTEE):
        return False
    return any(word in court for word in HIGHER_COURT_WORDS)


def principle_term(
    source_kind: str | None,
    court: str | None,
    is_binding: bool | None,
    case_number: str | None = None,
) -> str:
    """The term for a principle drawn from a source: a binding ruling of a district court or
    the Supreme Court is הלכה; a decision of an appeals committee (the committee's own, or a
    ruling whose court is a ועדת ערר) is כלל פרשני; anything else is עיקרון. Without a court,
    the case number's proceeding type names it (`בג"ץ` -> the Supreme Court)."""
    court = _court(court, case_number)
    if source_kind == "internal_committee" or court.startswith(APPEALS_COMMITTEE):
        return INTERPRETIVE_RULE
    higher = any(word in court for word in HIGHER_COURT_WORDS)
    if is_binding and higher:
        return HALACHA
    return PRINCIPLE


def canonical_term(sources: list[dict]) -> str | None:
    """The term of a canonical statement: the strongest of the terms of the rulings its live
    occurrences come from (הלכה, then כלל פרשני, then עיקרון); None without one."""
    found = {
        principle_term(
            s.get("source_kind"), s.get("court"), s.get("is_binding"), s.get("case_number")
        )
        for s in sources
    }
    return next((term for term in (HALACHA, INTERPRETIVE_RULE, PRINCIPLE) if term in found), None)


def approved_by(
    status: str | None, reviewed_by: str | None, votes: int | None, score: float | None
) -> str | None:
    """Who approved a principle, as every hit, list and card shows it: `chair`, `panel 3/3`,
    `panel 2/3 · 0.91`; None for one not approved."""
    if status != "approved":
        return None
    if reviewed_by != "panel":
        return reviewed_by
    if votes is None:
        return "panel"
    shown = f"panel {votes}/3"
    return shown if votes >= 3 or score is None else f"{shown} · {score:.2f}"


# What a principle the chair has not confirmed is called wherever it is shown (search hits, the
# writer's brief, MCP, the desk, the CLI): never הלכה / כלל פרשני / עיקרון as if it bound.
PANEL_PROPOSAL = "הצעת הפאנל"
PROPOSAL = "הצעה"  # one the panel never voted on (added by hand), not yet hers


def chair_confirmed(status: str | None, reviewed_by: str | None, confirmed_by: str | None) -> bool:
    """Whether the chair stands behind an approved principle: she approved it, or she confirmed
    what the panel approved."""
    return status == "approved" and (reviewed_by == "chair" or confirmed_by == "chair")


def shown_term(term: str | None, confirmed: bool, by_panel: bool = True) -> ShownTerm:
    """The one labelling of a principle, for every place that shows one: `term` is its term
    (הלכה / כלל פרשני / עיקרון) only once the chair approved or confirmed it, else
    "הצעת הפאנל" ("הצעה" for one the panel never voted on, `by_panel` false); `unconfirmed` says so for a program; `term_once_confirmed` keeps the term its
    source would give it (what it becomes when she confirms it). A unit that is not a
    principle (term None) stays unlabelled."""
    if term is None:
        return {"term": None, "unconfirmed": False, "term_once_confirmed": None}
    return {
        "term": term if confirmed else PANEL_PROPOSAL if by_panel else PROPOSAL,
        "unconfirmed": not confirmed,
        "term_once_confirmed": term,
    }


def principle_shown_term(row: Mapping[str, Any]) -> ShownTerm:
    """`shown_term` of a principle's row as the lists read it: its term from its source
    (`source_kind`, `court`, `is_binding`, `case_number`), whether the chair stands behind it
    (`review_status`, `reviewed_by`, `confirmed_by`), whether the panel voted (`votes`)."""
    return shown_term(
        principle_term(row["source_kind"], row["court"], row["is_binding"], row["case_number"]),
        chair_confirmed(row["review_status"], row["reviewed_by"], row["confirmed_by"]),
        row["votes"] is not None,
    )


def shown_status(status: str) -> str:
    """A principle's status as the lists, the API and the pages name it: stored `proposed`
    is `pending_review`; the others as they are."""
    return "pending_review" if status == "proposed" else status

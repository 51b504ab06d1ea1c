"""The search form of /search as the chair fills it: which corpus, the query, the filters that
corpus takes — each as she typed it (kept, shown back) and as it is searched — and what is
wrong with a field, in Hebrew, beside it.

Her words become the service's values here, never silently dropped: a practice area by its
Hebrew name (תכנון ובנייה) is the id the library keeps (`planning`); a court is one of the
library's courts, and a part of its name (עליון) is the one court it names; a case number is
one of her cases', and a partial one (1157/23, or without its district) is the one case it
fits (text/case_numbers.case_id) — several that fit are offered to choose from, none is said.
A refusal of the search service (a query too long, dates reversed) is shown beside the field
it concerns (the refusal's field, else its code's in catalog.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from ... import catalog
from ...corpora import SEARCHABLE
from ...errors import AppError
from ...learning import vocabulary as vocab
from ...retrieval import choices
from ...text.case_numbers import case_id
from ...text.hebrew import fold_quotes
from . import case_completion, core, labels
from .messages import said


@dataclass(frozen=True)
class CorpusForm:
    """One facet of the search box: the tool that searches it, the corpus that tool searches
    (what the telemetry records), the filters it takes, and the arguments it always passes
    (`fixed`: the precedent library kept to its rulings, or to the law's sections)."""

    key: str
    label: str
    tool: str
    filters: tuple[str, ...]  # the tool's filter arguments, in the form's order
    required: tuple[str, ...] = ()
    corpus: str = ""
    fixed: tuple[tuple[str, str], ...] = ()


def _facet(key: str, tool: str, corpus: str, filters: tuple[str, ...], **rest: Any) -> CorpusForm:
    return CorpusForm(key, labels.FACET[key], tool, filters, corpus=corpus, **rest)


_DATES = ("date_from", "date_to")
CORPUS_FORMS: dict[str, CorpusForm] = {
    f.key: f
    for f in (
        # Every facet at once (web/desk/search.py runs each on its own and groups them).
        _facet("all", "", "", ("case_number",)),
        _facet(
            "rulings",
            "search_precedent_library",
            "external",
            ("court", "practice_area", *_DATES),
            fixed=(("doc_type", "ruling"),),
        ),
        _facet(
            "legislation",
            "search_precedent_library",
            "external",
            (),
            fixed=(("doc_type", "legislation"),),
        ),
        _facet("internal", "search_internal_decisions", "internal", ("practice_area", *_DATES)),
        # Her own finals: a practice area narrows them, none is demanded (the writing agents'
        # search_decisions keeps to one area; she is looking for what she wrote).
        _facet("style", "search_my_decisions", "style", ("practice_area",)),
        _facet(
            "case",
            "search_case_documents",
            "case",
            ("case_number",),
            required=("case_number",),
        ),
        _facet("case_precedents", "precedent_search_library", "case_precedents", ("case_number",)),
        _facet("digests", "search_digests", "digests", ("practice_area",)),
        # A search saved before the facets (`corpus=external`): rulings and the law together.
        _facet(
            "external", "search_precedent_library", "external", ("court", "practice_area", *_DATES)
        ),
    )
}
FACETS = tuple(k for k in CORPUS_FORMS if k != "external")  # the chips, in order
SEARCHED_IN_ALL = tuple(k for k in FACETS if k != "all")
# An address of a search saved before the facets: the library with a kind is that facet.
_OLD_KINDS = {("external", "ruling"): "rulings", ("external", "legislation"): "legislation"}

FILTER_LABELS = {
    "practice_area": "תחום",
    "court": "ערכאה",
    "date_from": "מתאריך",
    "date_to": "עד תאריך",
    "case_number": "מספר תיק",
}
PRACTICE_AREAS = vocab.PRACTICE_AREAS  # a select: the value the id, the text its Hebrew

EMPTY_QUERY = "השאילתה ריקה: כתבי מה לחפש"


@dataclass
class Asked:
    """One filled form: `values` as she typed them (shown back), `args` as searched, `errors`
    and `notes` (Hebrew) by field, the choices of the court select and of the case-number
    completion, and the case numbers she may choose from when hers fits several."""

    form: CorpusForm
    query: str
    values: dict[str, str]
    submitted: bool
    args: dict[str, str] = field(default_factory=dict)
    errors: dict[str, Any] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)
    courts: list[str] = field(default_factory=list)
    cases: list[str] = field(default_factory=list)
    choose: list[tuple[str, str]] = field(default_factory=list)  # (case number, its search)

    @property
    def ready(self) -> bool:
        """Whether to search: a query and no field in error."""
        return bool(self.query) and not self.errors

    def refused(self, exc: AppError) -> None:
        """The search service's refusal, beside the field it concerns (its own, else its code's
        in the catalog; the query's when the form has no such field), in the catalog's Hebrew."""
        _, name, _ = catalog.of(exc)
        name = "q" if name == "query" else name
        self.errors[name if name in (*self.form.filters, "q") else "q"] = said(exc)


def facet_of(params: Any) -> CorpusForm:
    """The facet an address asks for: its `corpus` (a search saved before the facets — the
    library with a `doc_type` — is that facet); none or unknown: every facet at once."""
    key = params.get("corpus") or "all"
    key = _OLD_KINDS.get((key, params.get("doc_type") or ""), key)
    return CORPUS_FORMS.get(key) or CORPUS_FORMS["all"]


def read(params: Any, view: Any) -> Asked:
    """The form from the query string, each filter resolved against the library (one
    connection)."""
    form = facet_of(params)
    values = {name: (params.get(name) or "").strip() for name in form.filters}
    asked = Asked(
        form, (params.get("q") or "").strip(), values, submitted=params.get("go") is not None
    )
    with view.store.connection() as conn:
        if "court" in form.filters:
            asked.courts = choices.courts(conn, SEARCHABLE[form.corpus])
        asked.cases = choices.case_numbers(conn)
        if "case_number" in form.filters:
            asked.args["case_number"] = _case_number(conn, asked, values["case_number"])
    for name in ("practice_area", "court", "date_from", "date_to"):
        if name in form.filters:
            asked.args[name] = _value(asked, name, values[name])
    asked.args = {k: v for k, v in asked.args.items() if v}
    if asked.submitted and not asked.query:
        asked.errors["q"] = EMPTY_QUERY
    if asked.query or asked.submitted:
        for name in form.required:
            if not values[name]:
                asked.errors.setdefault(name, f"במאגר «{form.label}» החיפוש מחייב {_what(name)}")
    return asked


def _what(name: str) -> str:
    return {"practice_area": "לבחור תחום", "case_number": "את מספר התיק"}.get(
        name, FILTER_LABELS[name]
    )


def _value(asked: Asked, name: str, value: str) -> str:
    """A practice area's id (from its id or its Hebrew name), a court of the library (from its
    name or a part of it), a date as she types it (core.typed_day)."""
    if not value:
        return value
    if name.startswith("date"):
        try:
            return core.typed_day(value, name)
        except AppError as exc:
            asked.errors[name] = catalog.hebrew(exc.code) or ""
            return ""
    if name == "practice_area":
        if value in PRACTICE_AREAS:
            return value
        by_name = [a for a in PRACTICE_AREAS if labels.PRACTICE_AREA.get(a) == value]
        if by_name:
            asked.values[name] = by_name[0]
            return by_name[0]
        asked.errors[name] = "תחום לא מוכר: בחרי תחום מהרשימה"
        return ""
    if value in asked.courts:
        return value
    wanted = _folded(value)
    fitting = [c for c in asked.courts if wanted and wanted in _folded(c)]
    if len(fitting) == 1:
        asked.values[name] = fitting[0]
        return fitting[0]
    asked.errors[name] = (
        "כמה ערכאות מתאימות: בחרי אחת מהרשימה"
        if fitting
        else "אין בספרייה פסקי דין של ערכאה כזו: בחרי ערכאה מהרשימה"
    )
    return ""


def _folded(text: str) -> str:
    return " ".join(fold_quotes(text).replace("-", " ").split())


def _case_number(conn: Any, asked: Asked, typed: str) -> str:
    """Her case's number for what she typed: the same case in the one spelling; else the one
    case whose number/year it names and whose proceeding and district it does not contradict
    (said beside the field); several such: none, and she chooses (`asked.choose`)."""
    if not typed:
        return ""
    if case_id(typed) is None:
        asked.errors["case_number"] = "מספר התיק אינו תקין: כתבי מספר ושנה, למשל 1157/23"
        return ""
    found = case_completion.complete(conn, typed)
    if found.known:
        asked.values["case_number"] = found.number
        if found.completed:
            asked.notes["case_number"] = f"מספר התיק הושלם: {found.number}"
        return found.number
    fitting, same_number = found.several, found.alike
    base = {"corpus": asked.form.key, "q": asked.query}
    asked.choose = [(c, address(base | {"case_number": c})) for c in fitting or same_number]
    if fitting:
        asked.errors["case_number"] = "כמה תיקים מתאימים למספר הזה: בחרי אחד מהם"
    elif same_number:
        asked.errors["case_number"] = "אין תיק בכתיב הזה; אולי התכוונת לאחד מאלה"
    else:
        asked.errors["case_number"] = "אין תיק במספר הזה: בחרי תיק מהרשימה"
    return ""


def address(params: dict[str, Any]) -> str:
    """/search with these parameters (empty ones left out)."""
    return "/search?" + urlencode({k: v for k, v in params.items() if v not in (None, "")})

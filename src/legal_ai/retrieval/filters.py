"""The filters of a search (retrieval/legs.py composes them into every leg's statement): which
ones each corpus can honour, a refusal naming them for any other, and the SQL predicate of the
corpus's scope, searchability and the filters (values always as parameters)."""

from __future__ import annotations

from dataclasses import dataclass

from psycopg import sql

from ..corpora import Corpus
from ..errors import InvalidInput


@dataclass(frozen=True)
class Filters:
    practice_area: str | None = None
    case_number: str | None = None
    court: str | None = None
    date_from: str | None = None
    date_to: str | None = None
    doc_type: str | None = None
    exclude_case_number: str | None = None


_DATE_COLUMN = {"case_law": "decided_on", "digests": "published_on", "documents": "decided_on"}


# The filters each corpus can honour. Anything else is refused (`check_filters`), never ignored:
# a case's documents carry no decision date (her finals do: migration 0011), the committee's own
# decisions all have one court, digests have no case number, attached citations only a case.
SUPPORTED_FILTERS: dict[str, tuple[str, ...]] = {
    "case": ("case_number", "practice_area", "doc_type", "exclude_case_number"),
    "style": (
        "practice_area",
        "date_from",
        "date_to",
        "case_number",
        "doc_type",
        "exclude_case_number",
    ),
    "external": (
        "court",
        "practice_area",
        "date_from",
        "date_to",
        "case_number",
        "doc_type",
        "exclude_case_number",
    ),
    "internal": (
        "practice_area",
        "date_from",
        "date_to",
        "case_number",
        "doc_type",
        "exclude_case_number",
    ),
    "digests": ("practice_area", "date_from", "date_to", "doc_type"),
    "case_precedents": ("case_number", "exclude_case_number"),
}


def check_filters(corpus: Corpus, filters: Filters) -> None:
    """Refuse a filter the corpus cannot apply, naming the ones it can."""
    supported = SUPPORTED_FILTERS[corpus.key]
    given = [name for name, value in filters.__dict__.items() if value is not None]
    refused = [name for name in given if name not in supported]
    if refused:
        raise InvalidInput(
            f"corpus {corpus.key!r} cannot be filtered by {', '.join(refused)}; "
            f"its filters: {', '.join(supported)}",
            code="filter.not_applicable",
        )


def filter_sql(corpus: Corpus, filters: Filters) -> tuple[sql.Composable, dict]:
    """Scope, searchability and the filters (values as parameters). A filter the corpus cannot
    apply raises InvalidInput (see SUPPORTED_FILTERS); none is dropped silently."""
    check_filters(corpus, filters)
    alias = "i" if corpus.item_table else "u"
    parts: list[sql.Composable] = [corpus.scope(alias)]
    params: dict = dict(corpus.scope_params())
    if corpus.item_table:
        parts.append(sql.SQL("i.searchable"))
    column = sql.SQL(alias + ".{}").format
    for name in ("practice_area", "case_number", "court", "doc_type"):
        value = getattr(filters, name)
        if value is not None and (
            name in corpus.columns or (name == "doc_type" and corpus.item_table)
        ):
            parts.append(
                sql.SQL("{} = {}").format(column(sql.Identifier(name)), sql.Placeholder(name))
            )
            params[name] = value
    if filters.exclude_case_number is not None and "case_number" in corpus.columns:
        parts.append(
            sql.SQL("{} IS DISTINCT FROM %(exclude_case_number)s").format(
                column(sql.Identifier("case_number"))
            )
        )
        params["exclude_case_number"] = filters.exclude_case_number
    date_column = _DATE_COLUMN.get(corpus.item_table or "")
    if date_column:
        for name, op in (("date_from", ">="), ("date_to", "<=")):
            value = getattr(filters, name)
            if value is not None:
                parts.append(
                    sql.SQL("i.{} {} {}::date").format(
                        sql.Identifier(date_column), sql.SQL(op), sql.Placeholder(name)
                    )
                )
                params[name] = value
    return sql.SQL(" AND ").join(parts), params

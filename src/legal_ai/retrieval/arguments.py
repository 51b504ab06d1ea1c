"""The arguments of a search (retrieval/search.py), checked before the database is touched: the
query and each filter value are text, cleaned like stored text (no NUL, zero-width or bidi
characters), and bounded in length; case numbers take their canonical spelling; dates are
YYYY-MM-DD; a filter the corpus cannot apply is refused (InvalidInput naming the corpus's
filters), never ignored; the mode is one of MODES and the limit 1..MAX_LIMIT."""

from __future__ import annotations

import datetime as dt
import re

from ..corpora import Corpus, get_corpus
from ..errors import InvalidInput
from ..text.case_numbers import normalize_case_number
from ..text.hebrew import clean_text, clean_value
from .filters import Filters, check_filters

MODES: tuple[str, ...] = ("hybrid", "semantic", "lexical")
# A query is refused above MAX_QUERY_CHARS (a pasted page of a decision fits); the semantic legs
# and the reranker read its first SEMANTIC_QUERY_CHARS (semantic_text): the local model's time
# grows faster than the length it reads (150 characters 33 ms, 200 47, 300 68: docs/search.md,
# "A long query"). At 150 one of the ten shared pairs' 200-character summaries no longer found
# its decision in the first 10, so 200. The lexical and reference legs read all of it.
MAX_QUERY_CHARS = 20_000
SEMANTIC_QUERY_CHARS = 200
MAX_FILTER_CHARS = 200
MAX_LIMIT = 100
_DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}")


def clean_query(query: str) -> str:
    if not isinstance(query, str):
        raise InvalidInput("the query must be text", code="query.not_text", field="query")
    if len(query) > 4 * MAX_QUERY_CHARS:  # refused before any work is spent on it
        raise InvalidInput(
            f"the query is {len(query)} characters; shorten it to at most {MAX_QUERY_CHARS}",
            code="query.too_long",
            field="query",
        )
    text = clean_text(query).strip()
    if not text:
        raise InvalidInput(
            "the query is empty; type what to search for", code="query.empty", field="query"
        )
    if len(text) > MAX_QUERY_CHARS:
        raise InvalidInput(
            f"the query is {len(text)} characters; shorten it to at most {MAX_QUERY_CHARS}",
            code="query.too_long",
            field="query",
        )
    return text


def semantic_text(text: str, limit: int = SEMANTIC_QUERY_CHARS) -> str:
    """What the semantic legs read of a checked query: all of it up to `limit` characters, else
    its start, cut at the last space within them (a word is never split)."""
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit + 1)
    return text[: cut if cut > 0 else limit].rstrip()


def filter_value(name: str, value: object) -> str | None:
    """One filter value as the database compares it (None: no filter; a blank value is none).
    Raises InvalidInput for a value that is not text, too long, or not a date."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidInput(
            f"filter {name} must be text, not {type(value).__name__}",
            code="filter.not_text",
            field=name,
        )
    if len(value) > 4 * MAX_FILTER_CHARS:
        raise InvalidInput(
            f"filter {name} is over {MAX_FILTER_CHARS} characters; shorten it",
            code="filter.too_long",
            field=name,
        )
    text = clean_value(value)
    if not text:
        return None
    if len(text) > MAX_FILTER_CHARS:
        raise InvalidInput(
            f"filter {name} is over {MAX_FILTER_CHARS} characters; shorten it",
            code="filter.too_long",
            field=name,
        )
    if name in ("case_number", "exclude_case_number"):
        return normalize_case_number(text)
    if name in ("date_from", "date_to"):
        try:
            if not _DATE_RE.fullmatch(text):
                raise ValueError
            return dt.date.fromisoformat(text).isoformat()
        except ValueError:
            raise InvalidInput(
                f"{name} {text!r} is not a date; write it as YYYY-MM-DD",
                code="date.invalid",
                field=name,
            ) from None
    return text


def normalized_filters(corpus: Corpus, filters: Filters | None) -> Filters:
    """`filters` with every value cleaned and checked, refused when the corpus cannot apply one
    of them."""
    filters = filters or Filters()
    if not isinstance(filters, Filters):
        raise InvalidInput("filters must be a Filters object")
    cleaned = Filters(
        **{name: filter_value(name, value) for name, value in filters.__dict__.items()}
    )
    check_filters(corpus, cleaned)
    if cleaned.date_from and cleaned.date_to and cleaned.date_from > cleaned.date_to:
        raise InvalidInput(
            f"date_from {cleaned.date_from} is after date_to {cleaned.date_to}; swap them",
            code="date.reversed",
            field="date_to",
        )
    return cleaned


def checked(
    corpus_key: str, mode: str, limit: int, query: str, filters: Filters | None
) -> tuple[Corpus, str, Filters]:
    """The searchable corpus, the cleaned query and the checked filters (InvalidInput first)."""
    corpus = get_corpus(corpus_key, searchable=True)
    if not isinstance(mode, str) or mode not in MODES:
        raise InvalidInput(
            f"unknown mode {mode!r}; choose one of: {', '.join(MODES)}",
            code="choice.unknown",
            field="mode",
        )
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(
            f"limit must be a whole number from 1 to {MAX_LIMIT}",
            code="number.out_of_range",
            field="limit",
        )
    text = clean_query(query)
    filters = normalized_filters(corpus, filters)
    return corpus, text, filters

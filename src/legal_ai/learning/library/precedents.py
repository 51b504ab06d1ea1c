"""A missing precedent's ruling, uploaded: the file is ingested into the external corpus with
the ruling's metadata (the same ingest service as `legal-ai ingest --corpus external`; the
record names the upload, `upload:<name>`, never a temporary path), then every unlinked citation
is linked to the library again and missing precedents are refreshed (library_links.link_library,
what a final's upload runs): the precedent is resolved once the ruling's whole identity (court,
district, number/year) matches it. A precedent cited by its reporter only (`פ"ד מד(1) 565`)
needs the ruling's case number; the reporter citation becomes the ruling's alias, so it links."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ... import upload_names
from ...corpora import get_corpus
from ...errors import InvalidInput, NotFound
from ...ingest.sources import IngestItem, SourceError, read_source
from ...retrieval.terms import court_of_case_number
from ...store import drafts_lessons as store
from ...store import jsonable
from ...text.bounds import Limits
from ...text.case_numbers import case_id
from .. import vocabulary as vocab
from . import links as library_links

if TYPE_CHECKING:
    from ...context import Context

FIELDS = ("title", "court", "case_number", "decided_on", "practice_area", "aliases")


def missing(app: Context, authority_id: int) -> dict:
    """One missing precedent with what its citation says: the case number (its ref) and the
    court the proceeding type is heard in — what the upload form is prefilled with."""
    with app.store.connection() as conn:
        row = store.missing_precedent(conn, authority_id)
    if row is None:
        raise NotFound(f"no missing precedent {authority_id}; reload the cases page")
    court = court_of_case_number(row["ref"]) if row["kind"] == "ruling" else None
    return {**jsonable(row), "court": court}


def upload_ruling(
    app: Context, authority_id: int, path: Path, *, source_name: str, **meta: Any
) -> dict:
    """Ingest `path` (PDF, DOCX, TXT, MD) as the ruling of missing precedent `authority_id`
    with `meta` (title, court, case_number, decided_on, practice_area; the case number defaults
    to the citation's) and resolve what it links. Returns the ingest's counts, the doc_id,
    `resolved` (this precedent) and the precedents still open."""
    precedent = missing(app, authority_id)
    unknown = sorted(set(meta) - set(FIELDS))
    if unknown:
        raise InvalidInput(
            f"unknown field(s) {', '.join(unknown)}; give {', '.join(FIELDS)}",
            code="choice.unknown",
        )
    given = {k: v for k, v in meta.items() if v not in (None, "")}
    if precedent["kind"] == "reporter":
        if case_id(given.get("case_number")) is None:
            raise InvalidInput(
                f"{precedent['ref']} names the ruling by its reporter only: give the ruling's "
                'case number (e.g. בג"ץ 594/89)',
                code="precedent.reporter_only",
                field="case_number",
            )
        given["aliases"] = [precedent["ref"]]
    given.setdefault("case_number", precedent["ref"])
    given.setdefault("title", precedent["ref"])
    given["case_number"] = vocab.case_number(given["case_number"])
    given["doc_type"] = "ruling"
    corpus = get_corpus("external")
    entries = list(
        read_source(
            path,
            corpus,
            given,
            doc_id=None,
            max_bytes=app.settings.max_file_mb * 2**20,
            name=upload_names.file_name(source_name),
            limits=Limits.of(app.settings),
        )
    )
    items: list[IngestItem] = []
    for entry in entries:
        if isinstance(entry, SourceError):
            raise InvalidInput(entry.error.replace(str(path), source_name), code=entry.code)
        items.append(dataclasses.replace(entry, source_path=source_name, file_path=str(path)))
    report = app.ingestor().ingest_items(items, corpus)
    if report.failed:
        raise InvalidInput(str(report.failed[0]["error"]).replace(str(path), source_name))
    with app.store.transaction() as conn:
        store.lock_citations(conn)
        library_links.link_library(conn)
        after = store.missing_precedent(conn, authority_id)
        still_open = [jsonable(r) for r in store.missing_precedents(conn)]
    return {
        "ref": precedent["ref"],
        "case_number": given["case_number"],
        "doc_ids": report.doc_ids,
        "ingested": report.ingested,
        "unchanged": report.unchanged,
        "unsearchable": report.unsearchable,
        "resolved": bool(after and after["status"] == "resolved"),
        "missing_precedents": still_open,
    }

"""Turn paths into ingest items: single-document files (PDF, DOCX, TXT, MD), JSONL records (BEIR
layout plus metadata fields) and Akoma Ntoso XML statutes (one item per section).

A source yields `IngestItem`s or `SourceError`s (one bad record never stops the rest).
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InvalidInput, UnsupportedFile
from ..retrieval.corpora import Corpus
from ..text import akn, extract
from ..text.hebrew import clean_text, normalize_case_number

RECORD_TEXT_FIELDS = ("text",)
_RESERVED = {"doc_id", "_id", "text", "metadata", "doc_type"}


@dataclass
class IngestItem:
    doc_id: str
    text: str
    source_path: str
    source_format: str
    doc_type: str
    fields: dict[str, Any] = field(default_factory=dict)  # item columns
    metadata: dict[str, Any] = field(default_factory=dict)  # everything else
    page_starts: list[int] | None = None
    file_sha256: str | None = None  # set for single-document files: duplicate check
    issue: str | None = None


@dataclass
class SourceError:
    path: str
    error: str


def coerce_fields(corpus: Corpus, raw: dict[str, Any], where: str) -> tuple[dict, dict]:
    """Split caller metadata into item columns (typed) and free metadata."""
    fields, metadata = {}, {}
    for key, value in raw.items():
        if key in _RESERVED or value is None:
            continue
        if key not in corpus.columns:
            metadata[key] = value
            continue
        if isinstance(value, str):
            value = clean_text(value).strip()
            if value == "":
                continue
        if key == "case_number":
            value = normalize_case_number(str(value))
        elif key in ("decided_on", "published_on"):
            try:
                value = dt.date.fromisoformat(str(value)[:10])
            except ValueError:
                raise InvalidInput(
                    f"{where}: {key}={value!r} is not a date; write it as YYYY-MM-DD"
                ) from None
        elif key in ("judges", "tags"):
            value = [v.strip() for v in value.split(",")] if isinstance(value, str) else list(value)
        elif key == "is_binding":
            value = str(value).strip().lower() in ("1", "true", "yes", "כן")
        fields[key] = value
    return fields, metadata


def iter_paths(paths: list[Path]) -> Iterator[Path]:
    """Files named, and the supported files under directories named (sorted)."""
    for path in paths:
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                if child.is_file() and child.suffix.lower() in extract.SUPPORTED:
                    yield child
        else:
            yield path


def read_source(
    path: Path,
    corpus: Corpus,
    meta: dict[str, Any],
    *,
    doc_id: str | None,
    max_bytes: int,
    text_fields: tuple[str, ...] = RECORD_TEXT_FIELDS,
) -> Iterator[IngestItem | SourceError]:
    """Items read from one path. `meta` (from the command line) applies to every item; record
    fields override it."""
    try:
        extract.check_size(path, max_bytes)
        suffix = path.suffix.lower()
        if suffix == ".jsonl":
            yield from _jsonl(path, corpus, meta, text_fields)
        elif suffix == ".xml":
            yield from _akn(path, corpus, meta)
        else:
            yield _single(path, corpus, meta, doc_id)
    except (UnsupportedFile, InvalidInput) as exc:
        yield SourceError(str(path), str(exc))


def _doc_type(corpus: Corpus, value: Any, where: str) -> str:
    doc_type = value or corpus.default_doc_type
    if doc_type not in corpus.doc_types:
        raise InvalidInput(
            f"{where}: doc_type {doc_type!r} does not fit corpus {corpus.key!r}"
            f" (allowed: {', '.join(corpus.doc_types)})"
        )
    return doc_type


def _single(path: Path, corpus: Corpus, meta: dict, doc_id: str | None) -> IngestItem:
    extracted = extract.extract(path)
    fields, metadata = coerce_fields(corpus, meta, str(path))
    fields.setdefault("title", path.stem)
    return IngestItem(
        doc_id=doc_id or path.name,
        text=extracted.text,
        source_path=str(path),
        source_format=extracted.source_format,
        doc_type=_doc_type(corpus, meta.get("doc_type"), str(path)),
        fields=fields,
        metadata=metadata,
        page_starts=extracted.page_starts,
        file_sha256=extract.file_sha256(path),
        issue=extracted.issue,
    )


def _jsonl(
    path: Path, corpus: Corpus, meta: dict, text_fields: tuple[str, ...]
) -> Iterator[IngestItem | SourceError]:
    with path.open("rb") as handle:
        for number, raw_line in enumerate(handle, start=1):
            where = f"{path}:{number}"
            if not raw_line.strip():
                continue
            try:
                record = json.loads(extract.decode_text(raw_line, path))
                if not isinstance(record, dict):
                    raise InvalidInput(f"{where}: a record must be a JSON object")
                yield _record(record, corpus, meta, text_fields, where, path)
            except json.JSONDecodeError as exc:
                yield SourceError(where, f"{where}: not valid JSON ({exc.msg}); fix the line")
            except (InvalidInput, UnsupportedFile) as exc:
                yield SourceError(where, str(exc))


def _record(
    record: dict, corpus: Corpus, meta: dict, text_fields: tuple[str, ...], where: str, path: Path
) -> IngestItem:
    doc_id = record.get("doc_id", record.get("_id"))
    if doc_id is None or str(doc_id).strip() == "":
        raise InvalidInput(f"{where}: the record has no doc_id; add a stable doc_id field")
    parts = [str(record[f]).strip() for f in text_fields if record.get(f)]
    missing_text = [f for f in text_fields if f not in record]
    if missing_text and not parts:
        raise InvalidInput(f"{where}: the record has no {' or '.join(missing_text)} field")
    text = clean_text("\n".join(parts))
    merged = {**meta, **{k: v for k, v in record.items() if k not in text_fields}}
    if isinstance(record.get("metadata"), dict):
        merged.update(record["metadata"])
    fields, metadata = coerce_fields(corpus, merged, where)
    return IngestItem(
        doc_id=str(doc_id),
        text=text,
        source_path=f"{path}#{doc_id}",
        source_format="jsonl",
        doc_type=_doc_type(corpus, record.get("doc_type", meta.get("doc_type")), where),
        fields=fields,
        metadata=metadata,
        issue=None if text.strip() else "the record's text is empty",
    )


def _akn(path: Path, corpus: Corpus, meta: dict) -> Iterator[IngestItem]:
    if "legislation" not in corpus.doc_types:
        raise InvalidInput(
            f"{path}: legislation belongs in the external corpus, not {corpus.key!r}"
        )
    for section in akn.parse_law(path):
        merged = {**meta, **{k: v for k, v in section.items() if k not in ("text", "metadata")}}
        fields, metadata = coerce_fields(corpus, merged, f"{path}#{section['eid']}")
        metadata.update(section["metadata"])
        yield IngestItem(
            doc_id=section["doc_id"],
            text=section["text"],
            source_path=f"{path}#{section['eid']}",
            source_format="akn",
            doc_type="legislation",
            fields=fields,
            metadata=metadata,
            issue=None if section["text"].strip() else "the section has no text",
        )

"""Turn paths into ingest items: single-document files (PDF, DOCX, TXT, MD), JSONL records (BEIR
layout plus metadata fields) and Akoma Ntoso XML statutes (one item per section).

A source yields `IngestItem`s or `SourceError`s (one bad record never stops the rest). Every
field is type-checked before it becomes an item: a JSONL line with a wrong type is reported with
its line number (`path:N: ...`) and the other lines still load. Strings are cleaned
(`clean_text`: no NUL, zero-width or bidi characters) before they reach the database.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..corpora import Corpus
from ..errors import InvalidInput, UnsupportedFile
from ..text import akn, citations, extract, isolated
from ..text.bounds import LIMITS, Limits
from ..text.case_numbers import normalize_case_number
from ..text.hebrew import clean_text, clean_value

RECORD_TEXT_FIELDS = ("text",)
_RESERVED = {"doc_id", "_id", "text", "metadata", "doc_type"}
MAX_DOC_ID_CHARS = 500  # a doc_id is a key (btree rows are bounded), not a text
MAX_CASE_NUMBER_CHARS = 200  # the same for a case number
_DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ][0-9:.+\-Z]*)?")
_LIST_COLUMNS = ("judges", "tags")
_FILTERED_COLUMNS = ("court", "practice_area", "publisher")  # compared with search filters
_TRUE = ("1", "true", "yes", "כן")
_FALSE = ("0", "false", "no", "לא")


def _json_type(value: Any) -> str:
    names = {
        dict: "an object",
        list: "a list",
        bool: "true/false",
        str: "a string",
        int: "a number",
        float: "a number",
        type(None): "null",
    }
    return names.get(type(value), type(value).__name__)


def _scalar(value: Any, where: str, key: str) -> Any:
    """A metadata value as stored: a cleaned string, a finite number, true/false or null."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidInput(f"{where}: {key} is {value}; write a finite number or a string")
    if value is None or isinstance(value, (bool, int, float)):
        return value
    raise InvalidInput(
        f"{where}: {key} is {_json_type(value)}; metadata values are strings, numbers, "
        "true/false or null (or a flat list of them)"
    )


def _metadata_value(value: Any, where: str, key: str) -> Any:
    if isinstance(value, list):
        return [_scalar(v, where, key) for v in value]
    return _scalar(value, where, key)


def _date(value: Any, where: str, key: str) -> dt.date:
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str) and _DATE_RE.fullmatch(value.strip()):
        try:
            return dt.date.fromisoformat(value.strip()[:10])
        except ValueError:
            pass
    raise InvalidInput(
        f"{where}: {key}={value!r} is not a date; write it as YYYY-MM-DD", code="date.invalid"
    )


def _text_column(value: Any, where: str, key: str) -> str:
    if not isinstance(value, str):
        raise InvalidInput(f"{where}: {key} must be a string, not {_json_type(value)}")
    return clean_text(value).strip()


def doc_id_of(value: Any, where: str) -> str:
    """A record's doc_id: a string or a whole number, cleaned, at most MAX_DOC_ID_CHARS."""
    if value is None:
        raise InvalidInput(f"{where}: the record has no doc_id; add a stable doc_id field")
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise InvalidInput(
            f"{where}: doc_id must be a string or a whole number, not {_json_type(value)}"
        )
    doc_id = clean_text(str(value)).strip()
    if not doc_id:
        raise InvalidInput(f"{where}: the record has no doc_id; add a stable doc_id field")
    if len(doc_id) > MAX_DOC_ID_CHARS:
        raise InvalidInput(
            f"{where}: doc_id is {len(doc_id)} characters; keep it to {MAX_DOC_ID_CHARS}"
        )
    return doc_id


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
    file_path: str | None = None  # where to read the file again (page images), if not source_path
    issue: str | None = None


@dataclass
class SourceError:
    path: str
    error: str
    code: str | None = None  # the refusal's code (catalog.py), when it had one


def coerce_fields(corpus: Corpus, raw: dict[str, Any], where: str) -> tuple[dict, dict]:
    """Split caller metadata into item columns (type-checked and typed) and free metadata
    (scalars, or flat lists of them). A wrong type raises InvalidInput naming the field."""
    fields: dict[str, Any] = {}
    metadata: dict[str, Any] = {}
    for raw_key, value in raw.items():
        key = clean_value(str(raw_key))  # one line: a key shows in messages
        if key in _RESERVED or value is None:
            continue
        if not key:
            raise InvalidInput(f"{where}: a metadata field has no name; name every field")
        if key not in corpus.columns:
            metadata[key] = _metadata_value(value, where, key)
            continue
        if key in ("decided_on", "published_on"):
            if isinstance(value, str) and not value.strip():
                continue
            fields[key] = _date(value, where, key)
        elif key == "aliases":
            fields[key] = _aliases(value, where)
        elif key in _LIST_COLUMNS:
            if isinstance(value, str):
                value = value.split(",")
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise InvalidInput(
                    f"{where}: {key} must be a string (comma-separated) or a list of strings"
                )
            fields[key] = [v for v in (clean_value(v) for v in value) if v]
        elif key == "is_binding":
            fields[key] = _flag(value, where)
        else:
            text = _text_column(value, where, key)
            if text == "":
                continue
            if key == "case_number":
                text = normalize_case_number(text)
                if len(text) > MAX_CASE_NUMBER_CHARS:
                    raise InvalidInput(
                        f"{where}: case_number is {len(text)} characters; write the case number"
                        " alone, e.g. ערר (מרכז) 1042/23"
                    )
            elif key in _FILTERED_COLUMNS:
                text = clean_value(text)
            fields[key] = text
    return fields, metadata


def _aliases(value: Any, where: str) -> list[str]:
    """Other names a ruling is cited by (`פ"ד מד(1) 565; תק-על 90(1) 12`), each as a reporter
    citation's ref when it is one (so a citation by reporter finds the ruling)."""
    if isinstance(value, str):
        value = value.split(";")
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InvalidInput(
            f"{where}: aliases must be a string (separated by ;) or a list of strings"
        )
    found = []
    for alias in (clean_value(v) for v in value):
        cited = [c for c in citations.extract(alias) if c.kind in ("reporter", "ruling")]
        if alias:
            found.append(cited[0].ref if cited else alias)
    return list(dict.fromkeys(found))


def _flag(value: Any, where: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower() if isinstance(value, (str, int)) else None
    if text in _TRUE or text in _FALSE:
        return text in _TRUE
    raise InvalidInput(f"{where}: is_binding={value!r} is not true/false; write true or false")


def iter_paths(paths: list[Path]) -> Iterator[tuple[Path, str]]:
    """Files named, and the supported files under directories named (sorted), each with the
    name it goes by: its path under the folder named (with the folder's own name in front), or,
    for a file named alone, its folder's name and its own."""
    for path in paths:
        if path.is_dir():
            base = path.resolve()
            for child in sorted(path.rglob("*")):
                if child.is_file() and child.suffix.lower() in extract.SUPPORTED:
                    relative = child.resolve().relative_to(base).as_posix()
                    yield child, f"{base.name}/{relative}" if base.name else relative
        else:
            parent = path.resolve().parent.name
            yield path, f"{parent}/{path.name}" if parent else path.name


def default_doc_id(name: str, fields: dict[str, Any], corpus: Corpus) -> str:
    """The doc_id of a file ingested without --doc-id: for a document of the chair's cases
    (corpora `case` and `style`) its case number and the file's name with its folder
    (`ערר 12/24/protocols/protocol.pdf`); for a ruling, a decision or a digest — whose case
    number is its own identifier, often completed later — the file's name with its folder. So
    `protocol.pdf` of one case or folder never replaces another's."""
    case = fields.get("case_number") if corpus.item_table == "documents" else None
    return f"{case}/{name}" if case else name


def read_source(
    path: Path,
    corpus: Corpus,
    meta: dict[str, Any],
    *,
    doc_id: str | None,
    max_bytes: int,
    text_fields: tuple[str, ...] = RECORD_TEXT_FIELDS,
    name: str | None = None,
    limits: Limits = LIMITS,
) -> Iterator[IngestItem | SourceError]:
    """Items read from one path. `meta` (from the command line) applies to every item; record
    fields override it. A single-document file (PDF, DOCX, TXT, MD) is read in a child process
    under `limits` (text/isolated.py)."""
    try:
        extract.check_size(path, max_bytes)
        suffix = path.suffix.lower()
        if suffix == ".jsonl":
            yield from _jsonl(path, corpus, meta, text_fields)
        elif suffix == ".xml":
            yield from _akn(path, corpus, meta)
        else:
            yield _single(path, corpus, meta, doc_id, name or path.name, limits)
    except (UnsupportedFile, InvalidInput) as exc:
        yield SourceError(str(path), str(exc), exc.code)
    except OSError as exc:  # unreadable: permissions, a folder named like a file, an I/O error
        reason = exc.strerror or type(exc).__name__
        yield SourceError(str(path), f"{path}: cannot be read ({reason}); check the file")


def _doc_type(corpus: Corpus, value: Any, where: str) -> str:
    if value is not None and not isinstance(value, str):
        raise InvalidInput(f"{where}: doc_type must be a string, not {_json_type(value)}")
    doc_type = clean_value(value or "") or corpus.default_doc_type
    if doc_type not in corpus.doc_types:
        raise InvalidInput(
            f"{where}: doc_type {doc_type!r} does not fit corpus {corpus.key!r}"
            f" (allowed: {', '.join(corpus.doc_types)})"
        )
    return doc_type


def _single(
    path: Path, corpus: Corpus, meta: dict, doc_id: str | None, name: str, limits: Limits
) -> IngestItem:
    extracted = isolated.read(path, limits)
    fields, metadata = coerce_fields(corpus, meta, str(path))
    fields.setdefault("title", path.stem)
    return IngestItem(
        doc_id=doc_id or default_doc_id(name, fields, corpus),
        text=extracted.text,
        source_path=str(path),
        source_format=extracted.source_format,
        doc_type=_doc_type(corpus, meta.get("doc_type"), str(path)),
        fields=fields,
        metadata={**metadata, **extracted.reading_metadata()},  # a DOCX's notes, changes
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
                    raise InvalidInput(
                        f"{where}: a record must be a JSON object, not {_json_type(record)}"
                    )
                yield _record(record, corpus, meta, text_fields, where, path)
            except json.JSONDecodeError as exc:
                yield SourceError(where, f"{where}: not valid JSON ({exc.msg}); fix the line")
            except RecursionError:
                yield SourceError(where, f"{where}: the JSON is nested too deeply; flatten it")
            except (InvalidInput, UnsupportedFile) as exc:
                message = str(exc)
                if not message.startswith(where):  # decode_text names the file, not the line
                    message = f"{where}: {message.removeprefix(f'{path}: ')}"
                yield SourceError(where, message)


def _record(
    record: dict, corpus: Corpus, meta: dict, text_fields: tuple[str, ...], where: str, path: Path
) -> IngestItem:
    doc_id = doc_id_of(record.get("doc_id", record.get("_id")), where)
    parts = []
    for name in text_fields:
        value = record.get(name)
        if value is None:
            continue
        if not isinstance(value, str):
            raise InvalidInput(f"{where}: {name} must be a string, not {_json_type(value)}")
        if value.strip():
            parts.append(value.strip())
    missing_text = [f for f in text_fields if f not in record]
    if missing_text and not parts:
        raise InvalidInput(f"{where}: the record has no {' or '.join(missing_text)} field")
    text = clean_text("\n".join(parts))
    merged = {**meta, **{k: v for k, v in record.items() if k not in text_fields}}
    if "metadata" in record and record["metadata"] is not None:
        if not isinstance(record["metadata"], dict):
            raise InvalidInput(
                f"{where}: metadata must be an object, not {_json_type(record['metadata'])}"
            )
        merged.update(record["metadata"])
    fields, metadata = coerce_fields(corpus, merged, where)
    return IngestItem(
        doc_id=doc_id,
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

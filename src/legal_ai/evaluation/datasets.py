"""BEIR-layout datasets: `corpus.jsonl` (doc_id, optional title, text, ...), `queries.jsonl`
(query_id, text), `qrels.tsv` (query_id, doc_id, relevance; a header line; extra columns
ignored). The three files may live in different folders."""

from __future__ import annotations

import csv
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InvalidInput


@dataclass
class Dataset:
    name: str
    corpus: dict[str, dict]
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]
    fields: tuple[str, ...]
    fingerprint: str = field(default="")

    def doc_text(self, doc_id: str) -> str:
        record = self.corpus[doc_id]
        return "\n".join(str(record[f]).strip() for f in self.fields if record.get(f))


def _jsonl(path: Path, what: str) -> list[dict]:
    if not path.is_file():
        raise InvalidInput(f"{path}: no such {what} file")
    out = []
    for number, line in enumerate(_text(path, what).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"{path}:{number}: not valid JSON ({exc.msg})") from None
        if not isinstance(record, dict):
            raise InvalidInput(f"{path}:{number}: each line must be a JSON object")
        out.append(record)
    return out


def _text(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InvalidInput(f"{path}: the {what} file is not UTF-8 text; save it as UTF-8") from None


def _relevance(path: Path, line: int, written: str) -> int:
    try:
        return int(written)
    except ValueError:
        raise InvalidInput(
            f"{path}:{line}: the relevance {written!r} is not a whole number (0, 1, 2 ...)"
        ) from None


def load_dataset(
    corpus: Path,
    queries: Path,
    qrels: Path,
    *,
    fields: tuple[str, ...] | None = None,
    name: str | None = None,
) -> Dataset:
    """Read the three files. `fields` picks the indexed corpus fields (default: title and text
    when present). Only judged queries are kept."""
    records = _jsonl(corpus, "corpus")
    docs: dict[str, dict] = {}
    for record in records:
        doc_id = record.get("doc_id", record.get("_id"))
        if doc_id is None:
            raise InvalidInput(f"{corpus}: a record has no doc_id")
        docs.setdefault(str(doc_id), record)  # first wins (pbl-silver repeats point_266ב)
    if fields is None:
        fields = tuple(f for f in ("title", "text") if any(f in r for r in records))
    if not fields:
        raise InvalidInput(f"{corpus}: no title or text field; say which with --fields")
    judged: dict[str, dict[str, int]] = {}
    if not qrels.is_file():
        raise InvalidInput(f"{qrels}: no such qrels file")
    with qrels.open(encoding="utf-8") as handle:
        reader = csv.reader(handle, delimiter="\t")
        header = next(reader, None)
        if not header or "query_id" not in header[0]:
            raise InvalidInput(
                f"{qrels}: the first line must be a header (query_id doc_id relevance)"
            )
        try:
            for row in reader:
                if len(row) < 3:
                    continue
                judged.setdefault(row[0], {})[row[1]] = _relevance(qrels, reader.line_num, row[2])
        except UnicodeDecodeError:
            raise InvalidInput(
                f"{qrels}: the qrels file is not UTF-8 text; save it as UTF-8"
            ) from None
    texts = {}
    for number, query in enumerate(_jsonl(queries, "queries"), start=1):
        if not isinstance(query.get("text"), str):
            raise InvalidInput(f'{queries}: query {number} has no text (a "text" string)')
        texts[str(query.get("query_id", query.get("_id")))] = query["text"]
    texts = {qid: text for qid, text in texts.items() if qid in judged}
    judged = {qid: docs_ for qid, docs_ in judged.items() if qid in texts}
    digest = hashlib.sha256()
    for path in (corpus, queries, qrels):
        digest.update(path.read_bytes())
    digest.update(repr(fields).encode())
    return Dataset(
        name=name or corpus.parent.name,
        corpus=docs,
        queries=texts,
        qrels=judged,
        fields=tuple(fields),
        fingerprint=digest.hexdigest()[:16],
    )

"""Our draft's registration (DESIGN §7): the one service behind `legal-ai draft add` and its
HTTP endpoint: the draft stored (a new version when its text changed) with its blocks and its
copy-policy report, and its case's pair opened at `draft_done`."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any, TypedDict

from ... import upload_names
from ...errors import InvalidInput
from ...store import drafts_lessons as store
from ...store import originals
from ...text import blocks as text_blocks
from .. import agent_bounds
from .. import vocabulary as vocab
from ..checks import cite_report, copy_policy
from ..methodology import read_decision, segment

if TYPE_CHECKING:
    from pathlib import Path

    from ...context import Context


def add_draft(
    app: Context,
    case: str,
    path: Path | str,
    *,
    appeal_type: str | None = None,
    outcome: str | None = None,
    practice_area: str | None = None,
    source_name: str | None = None,
    original: Path | str | None = None,
) -> DraftAdded:
    """Register our draft of `case` (a new version when its text changed). `source_name` is what
    the record and messages call the file (an upload's own name, never its temp path).
    `original`: the file as sent when `path` is a reading of it (a scan's OCR text,
    learning/pairs/scanned_decisions.py), kept as the draft's original instead."""
    case = vocab.case_number(case)
    appeal_type = vocab.choice(appeal_type, vocab.APPEAL_TYPES, "appeal type")
    outcome = vocab.choice(outcome, vocab.OUTCOMES, "outcome")
    practice_area = vocab.choice(practice_area, vocab.PRACTICE_AREAS, "practice area")
    extracted = read_decision(app, path, source_name)
    as_sent = _original(original or path)  # the file as it came, kept (migration 0046)
    digest = hashlib.sha256(extracted.text.encode("utf-8")).hexdigest()
    copy_policy.take_fingerprints(app)
    # Made (and recorded, through a connection of its own) before the upload's one connection
    # is taken: a pool of one must not wait on itself.
    embedder = app.embedder
    # Everything that computes runs first, holding no transaction (Store.reading: each read
    # its own): the blocks, the copy check against the other decisions and the citations'
    # check. The write transaction below only writes, so no other upload or page waits on a
    # lock while a long draft is compared.
    with app.store.reading() as conn:
        _refuse_after_final(case, store.get_pair(conn, case))
        seg = segment(conn, extracted.text)
        # The copy policy (docs/learning-loop.md), on every registration: stored with the draft.
        report = copy_policy.check_text(
            conn, case, extracted.text, seg.blocks, refresh=False, embedder=embedder
        )
    with app.store.transaction() as conn:
        # What the server keeps of the upload (the case's row and lock, the pair, the copy
        # report) is its own bookkeeping, written as its login (store/db.Store.as_login); the
        # request's role writes only the draft itself, which the database admits as the case's
        # next version and nothing else (migration 0033).
        with app.store.as_login(conn):
            store.lock_case(conn, case)
            pair = store.get_pair(conn, case, lock=True)
            _refuse_after_final(case, pair)  # again: a final may have arrived meanwhile
            opener = agent_bounds.new_case(app, conn, case)  # an agent past its cap: refused
            store.upsert_case(
                conn,
                case,
                appeal_type=appeal_type,
                outcome=outcome,
                practice_area=practice_area,
                created_by=opener,
            )
        draft, created = _stored_draft(
            conn,
            {
                "case_number": case,
                "content": extracted.text,
                "content_hash": digest,
                "blocks": seg.blocks,
                "missing_blocks": seg.missing,
                "appeal_type": appeal_type,
                "outcome": outcome,
                "practice_area": practice_area,
                "source_path": source_name or str(path),
            },
        )
        with app.store.as_login(conn):
            name = upload_names.file_name(source_name or str(path))
            kept_as = as_sent and originals.keep(conn, as_sent, name)
            if kept_as:
                originals.link_draft(conn, draft["id"], kept_as)
            if pair is None:
                pair = store.insert_pair(conn, case, "draft_done", draft_id=draft["id"])
            elif pair["draft_id"] != draft["id"]:
                pair = store.update_pair(conn, pair["id"], draft_id=draft["id"])
            copy_policy.store_report(conn, draft["id"], report)
            # The cite-check report of this version: a new check, a new one.
            kept = cite_report.record(
                conn,
                case=case,
                subject="draft",
                version=draft["version"],
                text=extracted.text,
                citations=report["citations"],
                draft_id=draft["id"],
            )
    return {
        "case_number": case,
        "pair_status": pair["status"],
        "draft_version": draft["version"],
        "created": created,
        "blocks": _block_words(seg),
        "missing_blocks": seg.missing,
        "copy_check": report,
        "cite_report": cite_report.handle(kept),
        "notes": list(extracted.reading),  # what reading the file did (DOCX: changes accepted)
    }


def _original(path: Path | str) -> bytes | None:
    """The uploaded file's bytes, when within what is kept (store/originals.MAX_BYTES)."""
    try:
        with open(path, "rb") as f:
            data = f.read(originals.MAX_BYTES + 1)
    except OSError:
        return None
    return data if len(data) <= originals.MAX_BYTES else None


def _refuse_after_final(case: str, pair: dict | None) -> None:
    if pair and pair["status"] != "draft_done":
        raise InvalidInput(
            f"the final of {case} has already arrived (pair {pair['status']}); a draft "
            "added now could not be compared fairly, so it is refused",
            code="draft.final_arrived",
            field="case_number",
        )


def _stored_draft(conn, values: dict[str, Any]) -> tuple[dict, bool]:
    """The draft of this text (found by its hash, else inserted as the case's next version) and
    whether it was inserted."""
    draft = store.find_draft(conn, values["case_number"], values["content_hash"])
    if draft is None:
        return store.insert_draft(conn, values), True
    return draft, False


class BlockWords(TypedDict):
    """One of the 12 blocks of an uploaded decision: its name, its words, the heading it was
    found under (None: no heading of its own)."""

    block: str
    words: int
    heading: str | None


class DraftAdded(TypedDict):
    """`legal-ai draft add --json` (and POST /api/drafts): the case, its pair's status, the
    draft's version and whether it is new, its 12 blocks, the blocks not found, the copy-policy
    report (learning/checks/copy_policy.py), the cite-check report it wrote, and what reading
    the file did."""

    case_number: str
    pair_status: str
    draft_version: int
    created: bool
    blocks: list[BlockWords]
    missing_blocks: list[str]
    copy_check: copy_policy.DraftCheck
    cite_report: cite_report.ReportHandle | None
    notes: list[str]


def _block_words(seg) -> list[BlockWords]:
    """Each of the 12 blocks with its word count and the heading it was found under."""
    return [
        {
            "block": b,
            "words": len(seg.blocks.get(b, "").split()),
            "heading": seg.headings.get(b),
        }
        for b in text_blocks.BLOCKS
    ]

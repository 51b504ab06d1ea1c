"""Final upload (DESIGN §7): the one service behind `legal-ai final upload` and its HTTP
endpoint, and the views of what it stores (the pairs, the held-out history, the missing
precedents); a draft's registration is learning/pairs/drafts.py.

Final upload: first, holding no transaction (Store.reading), the file is read and embedded,
its citations found and checked against the library and, when our draft exists, the two aligned
and measured (learning/pairs/held_out.py). Then one short write transaction: enroll the final in the
style corpus under the full case number; open or advance the pair to `final_received`; insert
it into `case_law` as `internal_committee` (chair from the case, else the committee default);
store the citations found, link those in the library and flag missing precedents; rebuild
corroboration; then, with our draft, append the held-out style-distance row (before any lesson
of the case is folded) and advance the pair to `analyzed`. A draft registered between the two
(the measure would be of another draft) refuses the upload, nothing written: send it again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict, cast

from ...corpora import get_corpus
from ...errors import Conflict, InvalidInput, StoreError
from ...ingest.pipeline import content_hash
from ...ingest.sources import IngestItem
from ...paging import Page, PageInfo, listed, window
from ...store import drafts_lessons as store
from ...store import items as sql_items
from ...store import jsonable, review_queue
from ...store.rows import Conn
from ...text import citations as text_citations
from ...text import extract
from ...text.blocks import chair_named
from .. import vocabulary as vocab
from ..arrival import metadata
from ..checks import CheckedCitation, check_citations, cite_report, copy_policy
from ..engine import jobs as learning_jobs
from ..library import link_library
from ..methodology import read_decision, segment
from . import held_out

if TYPE_CHECKING:
    from ...context import Context


# What upload_final tells `on_stage`, in order ("aligning" only with our draft).
STAGES = ("reading", "indexing", "citations", "aligning", "writing", "learning")


def _items(
    case: str, extracted: extract.Extracted, path: Path, fields: dict, name: str
) -> tuple[IngestItem, IngestItem]:
    sha = extract.file_sha256(path)
    common: dict[str, Any] = dict(
        doc_id=case,
        text=extracted.text,
        source_path=name,
        file_path=str(path),
        source_format=extracted.source_format,
        page_starts=extracted.page_starts,
        file_sha256=sha,
        metadata=extracted.reading_metadata(),  # a DOCX's notes' places, changes accepted
    )
    title = f"החלטה ב{case}"
    style = IngestItem(
        doc_type="document",
        **common,
        fields={
            "title": title,
            "case_number": case,
            "practice_area": fields["practice_area"],
            "decided_on": fields["decided_on"],
        },
    )
    internal = IngestItem(
        doc_type="decision",
        **common,
        fields={
            "title": title,
            "case_number": case,
            "practice_area": fields["practice_area"],
            "decided_on": fields["decided_on"],
            "chair_name": fields["chair_name"],
            "court": "ועדת הערר",
        },
    )
    return style, internal


def _read_case(app: Context, case: str, text: str) -> tuple:
    """The final's blocks and what is stored of its case: the case row, its pair, our draft."""
    with app.store.reading() as conn:
        seg = segment(conn, text)
        known = sql_items.get_case(conn, case) or {}
        pair = store.get_pair(conn, case)
        draft = store.get_draft(conn, pair["draft_id"]) if pair and pair["draft_id"] else None
    return seg, known, pair, draft


LABELS = ("appeal_type", "outcome", "practice_area")


def _labels(
    name: str, seg, known: dict, draft: dict | None, given: dict, from_draft: bool | None
) -> dict:
    """Her final's appeal type, outcome and practice area: what she gives;
    for one she does not give, the draft's only when she confirms it (`from_draft` True), else
    (False: HTTP and the desk) refused when the draft has one — a practice area read from her
    own final's header is hers. None (the CLI's and scripts' default): the draft's, marked
    `draft` (unconfirmed, shown on her case page). Labels a final already has stay unless she
    gives new ones. {labels, source, from_draft: [names taken from the draft]}."""
    if known.get("labels_source") == "final":
        kept = {k: given.get(k) or known.get(k) for k in LABELS}
        return {"labels": kept, "source": "final", "from_draft": []}
    drafted = {k: (draft or {}).get(k) or known.get(k) for k in LABELS}
    own_area = vocab.practice_area_from(seg.blocks["header"], seg.blocks.get("subject", ""))
    fallback = {} if from_draft is False else drafted
    labels = {k: given.get(k) or fallback.get(k) for k in LABELS}
    labels["practice_area"] = labels["practice_area"] or own_area
    taken = [k for k in LABELS if drafted[k] and not given.get(k) and labels[k] == drafted[k]]
    if from_draft is False:
        missing = [k for k in LABELS if drafted[k] and not labels[k]]
        if missing:
            said = ", ".join(f"{k} = {drafted[k]}" for k in missing)
            raise InvalidInput(
                f"{name}: the final's labels are the chair's: give {', '.join(missing)} (the "
                f"draft says {said}), or labels_from_draft=true to confirm the draft's",
                code="final.labels_needed",
            )
        taken = []
    source = "draft" if taken and from_draft is None else "final"
    return {"labels": labels, "source": source, "from_draft": taken}


def _final_fields(
    app: Context,
    case: str,
    name: str,
    seg,
    known: dict,
    practice_area: str | None,
    decided_on: str | None,
) -> dict:
    """The final's practice area (its labels', `_labels`), decision date and chair (given,
    stored, or read from it; the chair: the case's, else the server's setting, else the one the
    final names — text/blocks.chair_named); InvalidInput when one cannot be told."""
    fields = {
        "practice_area": practice_area,
        "decided_on": vocab.iso_date(decided_on, "decided_on")
        or vocab.decision_date(seg.blocks.get("signature", ""), seg.blocks["header"]),
        "chair_name": known.get("chair_name")
        or app.settings.committee_chair
        or chair_named(seg.blocks),
    }
    if fields["practice_area"] is None:
        raise InvalidInput(
            f"{name}: cannot tell the practice area; pass --practice-area",
            code="final.practice_area_needed",
            field="practice_area",
        )
    if fields["decided_on"] is None:
        raise InvalidInput(
            f"{name}: no decision date found; pass --decided-on YYYY-MM-DD",
            code="final.date_needed",
            field="decided_on",
        )
    if not fields["chair_name"]:
        raise InvalidInput(
            f"{case}: no chair is recorded for this case and the final names none (no 'בפני:' "
            "line in its header, no name beside 'יו\"ר' in its signature); add one to the file, "
            "or set LEGAL_AI_COMMITTEE_CHAIR to the committee chair's name (a decision is never "
            "attributed to a default)",
            code="final.chair_unknown",
        )
    return fields


def _already_stored(app: Context, case: str, pair: dict | None, final_hash: str) -> bool:
    """Whether this very final is stored already (and its pair past our draft)."""
    with app.store.connection() as conn:
        stored = sql_items.find_item(conn, get_corpus("internal"), case)
    return bool(
        stored and pair and stored["content_hash"] == final_hash and pair["status"] != "draft_done"
    )


def _write_final(
    conn,
    ingestor,
    case: str,
    fields: dict,
    labelled: dict,
    staged_style,
    staged_internal,
) -> tuple:
    """The case row (its labels the final's: `_labels`) and both copies of the final written
    (the caller's transaction, the case locked); its pair, locked; the copies' statuses; and
    whether nothing changed."""
    store.lock_case(conn, case)
    store.upsert_case(conn, case, chair_name=fields["chair_name"])
    store.set_final_labels(conn, case, labelled["labels"], labelled["source"])
    style_outcome, style_status = ingestor.write_staged(conn, staged_style)
    internal_outcome, internal_status = ingestor.write_staged(conn, staged_internal)
    pair = store.get_pair(conn, case, lock=True)
    unchanged = bool(
        {style_outcome, internal_outcome} == {"unchanged"}
        and pair
        and pair["status"] != "draft_done"
    )
    return pair, style_status, internal_status, unchanged


def _written(conn: Conn, corpus_key: str, case: str) -> dict:
    """The final's copy in `corpus_key`, written in this transaction."""
    row = sql_items.find_item(conn, get_corpus(corpus_key), case)
    if row is None:
        raise StoreError(f"the final of {case} was not stored in {corpus_key}")
    return row


def _advance_pair(
    conn, case: str, pair: dict | None, blocks: dict, notes: list[str]
) -> tuple[dict, dict, dict]:
    """The pair opened or moved to `final_received` with the final's two stored copies (a
    changed final of a pair past that keeps its status); the pair and the copies' rows."""
    style_row = _written(conn, "style", case)
    internal_row = _written(conn, "internal", case)
    version = internal_row["version"]
    rows = {
        "style_document_id": style_row["id"],
        "case_law_id": internal_row["id"],
        "final_version": version,
        "final_blocks": blocks,
    }
    if pair is None:
        pair = store.insert_pair(conn, case, "final_received", **rows)
    elif pair["status"] == "draft_done":
        pair = store.update_pair(conn, pair["id"], status="final_received", **rows)
    else:
        notes.append(f"a changed final: stored as version {version}")
        pair = store.update_pair(conn, pair["id"], **rows)
    return pair, style_row, internal_row


def _held_out(
    conn, pair: dict, measured: dict | None, notes: list[str]
) -> tuple[dict, HistoryRow | None]:
    """With our draft (measured before the transaction): the analysis and the held-out
    history row, the pair `analyzed`."""
    history_row: HistoryRow | None = None
    if measured is None:
        notes.append(
            "no draft was registered for this case, so no held-out snapshot was possible; "
            "the final still joined the style corpus and the internal decisions"
        )
    else:
        analysis, history = held_out.rows(measured, pair)
        history_row = _history_row(store.append_history(conn, history))
        changes: dict[str, Any] = {"analysis": analysis}
        if pair["status"] == "final_received":
            changes["status"] = "analyzed"
        pair = store.update_pair(conn, pair["id"], **changes)
    return pair, history_row


class OpenRevisions(Conflict):
    """A Word final that still has open tracked changes or comments: maybe not yet the signed
    one. Taken only when the caller says so (`accept_open_changes`); nothing was stored.
    `changes`: how many tracked changes; `comments`: the comments' texts (their count
    `comment_count`)."""

    code = "final.open_revisions"

    def __init__(self, message: str, changes: int, comments: tuple[str, ...], count: int):
        super().__init__(message, field="file")
        self.changes, self.comments, self.comment_count = changes, comments, count


def open_revisions(extracted: extract.Extracted, name: str) -> OpenRevisions | None:
    """The refusal of a Word file with open tracked changes or comments, or None."""
    changes = sum((extracted.tracked_changes or {}).values())
    count = len(extracted.comments)
    if not changes and not count:
        return None
    first = f' (the first: "{extracted.comments[0][:120]}")' if extracted.comments else ""
    return OpenRevisions(
        f"{name}: the Word file still has {changes} open tracked change(s) and {count} "
        f"comment(s){first}: is it the signed final? Send it with accept_open_changes=true "
        "(CLI: --accept-open-changes) to take it as signed, its changes accepted and its "
        "comments left out",
        changes,
        extracted.comments,
        count,
    )


def _read_final(
    app: Context,
    case: str,
    path: Path,
    given: dict,
    from_draft: bool | None,
    decided_on: str | None,
    source_name: str | None,
    accept_open: bool,
) -> tuple:
    """The final read: its text, its blocks, its case's pair, its labels, its fields and its two
    copies to ingest (the style corpus's, the internal decisions'). A Word file with open
    tracked changes or comments is refused unless `accept_open` (OpenRevisions)."""
    extracted = read_decision(app, path, source_name)
    unsettled = None if accept_open else open_revisions(extracted, source_name or path.name)
    if unsettled is not None:
        raise unsettled
    seg, known, pair, draft = _read_case(app, case, extracted.text)
    name = source_name or path.name
    labelled = _labels(name, seg, known, draft, given, from_draft)
    area = labelled["labels"]["practice_area"]
    fields = _final_fields(app, case, name, seg, known, area, decided_on)
    style_item, internal_item = _items(case, extracted, path, fields, source_name or str(path))
    return extracted, seg, pair, draft, labelled, fields, style_item, internal_item


def _shown_labels(labelled: dict) -> ShownLabels:
    """The final's labels as the upload answers them: each label, whose they are
    (`source`: final | draft) and which came from the draft (`from_draft`)."""
    labels = labelled["labels"]
    return {
        "appeal_type": labels["appeal_type"],
        "outcome": labels["outcome"],
        "practice_area": labels["practice_area"],
        "source": labelled["source"],
        "from_draft": labelled["from_draft"],
    }


def _label_note(labelled: dict) -> list[str]:
    if labelled["source"] != "draft":
        return []
    return [
        "the final's " + ", ".join(labelled["from_draft"]) + " were taken from the draft, "
        "unconfirmed: give them with the final (--appeal-type, --outcome, --practice-area) or "
        "confirm the draft's (--labels-from-draft); her case page shows them as the draft's"
    ]


def _relabel(app: Context, case: str, labelled: dict) -> None:
    """The same final again with labels: its case takes them (nothing else changes)."""
    with app.store.transaction() as conn:
        store.lock_case(conn, case)
        known = sql_items.get_case(conn, case) or {}
        now = {k: known.get(k) for k in LABELS}
        if (now, known.get("labels_source")) != (labelled["labels"], labelled["source"]):
            store.set_final_labels(conn, case, labelled["labels"], labelled["source"])


def check_fields(given: dict) -> None:
    """What a final's form says, checked before its file is read (the desk answers at once):
    its labels, its date and its yes/no flags; InvalidInput names the field."""
    vocab.choice(given.get("practice_area"), vocab.PRACTICE_AREAS, "practice area")
    vocab.choice(given.get("appeal_type"), vocab.APPEAL_TYPES, "appeal type")
    vocab.choice(given.get("outcome"), vocab.OUTCOMES, "outcome")
    vocab.iso_date(given.get("decided_on"), "decided_on")
    vocab.flag(given.get("labels_from_draft"), "labels_from_draft")
    vocab.flag(given.get("accept_open_changes"), "accept_open_changes")


class CitationCounts(TypedDict):
    """A decision's citations: linked to the library, missing from it (a ruling or reporter
    citation it does not hold), ambiguous (several rulings fit: the chair picks)."""

    linked: int
    missing: int
    ambiguous: int


class ShownLabels(TypedDict):
    """A final's labels as its upload answers them: each label, whose they are (`source`:
    final | draft) and which came from the draft."""

    appeal_type: str | None
    outcome: str | None
    practice_area: str | None
    source: str
    from_draft: list[str]


class FinalUploaded(TypedDict):
    """`legal-ai final upload --json` (and POST /api/finals): the case and its pair's status,
    the final's items and version, whether it changed, its searchability, the blocks not
    found, its citations' counts, the cite-check report it wrote (absent when nothing
    changed), the held-out history row it wrote (None: no draft, or nothing changed), the
    learning job it queued, its labels, notes, and what its metadata awaits."""

    case_number: str
    pair_status: str
    case_law_id: int
    style_document_id: int
    version: int
    changed: bool
    searchable: bool
    blocks_missing: list[str]
    citations: CitationCounts
    cite_report: NotRequired[cite_report.ReportHandle | None]
    history_row: HistoryRow | None
    learning_job: int | None
    labels: ShownLabels
    notes: list[str]
    metadata: dict[str, Any]


def upload_final(
    app: Context,
    case: str,
    path: Path | str,
    *,
    practice_area: str | None = None,
    decided_on: str | None = None,
    appeal_type: str | None = None,
    outcome: str | None = None,
    labels_from_draft: bool | str | None = None,
    source_name: str | None = None,
    accept_open_changes: bool | str | None = None,
    on_stage: Callable[[str], None] | None = None,
    original: Path | str | None = None,
) -> FinalUploaded:
    """Store the chair's signed final (the module's docstring says what in order). Its labels
    (appeal type, outcome, practice area) are hers: given here, or the draft's when
    `labels_from_draft` is true; False (HTTP, the desk) refuses to take the draft's unasked;
    None (the CLI's default) takes them marked unconfirmed (`_labels`). A Word file with open
    tracked changes or comments is refused (OpenRevisions) unless `accept_open_changes`.
    `on_stage(name)` is told each stage as it begins (STAGES), for a page that shows them.
    `original`: the file she sent when `path` is a reading of it (a scan's OCR text,
    learning/pairs/scanned_decisions.py): the item's file, kept as her original."""
    stage = on_stage or (lambda _name: None)
    case = vocab.case_number(case)
    path = Path(path)
    given = {
        "practice_area": vocab.choice(practice_area, vocab.PRACTICE_AREAS, "practice area"),
        "appeal_type": vocab.choice(appeal_type, vocab.APPEAL_TYPES, "appeal type"),
        "outcome": vocab.choice(outcome, vocab.OUTCOMES, "outcome"),
    }
    from_draft = vocab.flag(labels_from_draft, "labels_from_draft")
    accept_open = bool(vocab.flag(accept_open_changes, "accept_open_changes"))
    stage("reading")
    extracted, seg, pair, draft, labelled, fields, style_item, internal_item = _read_final(
        app, case, path, given, from_draft, decided_on, source_name, accept_open
    )
    if original is not None:  # the scan she sent, not its OCR text, is the final's file
        sent = {"file_sha256": extract.file_sha256(Path(original)), "file_path": str(original)}
        style_item, internal_item = replace(style_item, **sent), replace(internal_item, **sent)
    style_corpus, internal_corpus = get_corpus("style"), get_corpus("internal")

    final_hash = content_hash(internal_item)
    if _already_stored(app, case, pair, final_hash):
        _relabel(app, case, labelled)
        return _unchanged(app, case, pair, _shown_labels(labelled))

    ingestor = app.ingestor()
    stage("indexing")
    staged_style = ingestor.stage(style_item, style_corpus)
    staged_internal = ingestor.stage(internal_item, internal_corpus)  # same texts: cache hits
    notes: list[str] = list(extracted.reading)  # what reading the file did (DOCX: changes accepted)
    notes += _label_note(labelled)
    # What computes (the citations' check, the alignment with our draft) holds no transaction.
    with app.store.reading() as conn:
        stage("citations")
        found = _graph_citations(case, extracted.text)
        checked = check_citations(conn, case, extracted.text)
        if draft:
            stage("aligning")
        measured = (
            held_out.measure(conn, case, draft, seg.blocks, extracted.text) if draft else None
        )
    stage("writing")
    with app.store.transaction() as conn:
        pair, style_status, internal_status, unchanged = _write_final(
            conn, ingestor, case, fields, labelled, staged_style, staged_internal
        )
        if unchanged:  # another upload of this file won the race (the labels given written)
            return _unchanged(app, case, pair, _shown_labels(labelled))
        _same_draft(case, pair, draft)
        pair, style_row, internal_row = _advance_pair(conn, case, pair, seg.blocks, notes)
        cited = _citations(conn, internal_row["id"], found)
        kept = _cite_report(app, conn, case, internal_row, extracted.text, checked)
        pair, history_row = _held_out(conn, pair, measured, notes)
        # The learning stage (distill, panel, curator) of this final, queued with the upload:
        # one job per case and final text (the same final again queues nothing).
        job = learning_jobs.enqueue(conn, case, final_hash)
    stage("learning")
    if job is not None:
        notes.append(
            f"learning stage queued (job {job['id']}): run `legal-ai learning run` "
            "or a `legal-ai worker`"
        )
    return {
        "case_number": case,
        "pair_status": pair["status"],
        "case_law_id": internal_row["id"],
        "style_document_id": style_row["id"],
        "version": internal_row["version"],
        "changed": True,
        "searchable": bool(internal_status["searchable"] and style_status["searchable"]),
        "blocks_missing": seg.missing,
        "citations": cited,
        "cite_report": cite_report.handle(kept),
        "history_row": history_row,
        "learning_job": job["id"] if job else None,
        "labels": _shown_labels(labelled),
        "notes": notes,
        "metadata": metadata.report_of(app, internal_row["id"]),  # awaiting metadata: what to set
    }


def _same_draft(case: str, pair: dict | None, draft: dict | None) -> None:
    """The draft the final was measured against is still the pair's (Conflict, nothing
    written, when a draft was registered while the final was being read)."""
    now = pair["draft_id"] if pair else None
    if now != (draft["id"] if draft else None):
        raise Conflict(
            f"a draft of {case} was registered while the final was being read; nothing was "
            "stored: send the final again",
            code="final.draft_meanwhile",
        )


def _cite_report(
    app: Context,
    conn,
    case: str,
    internal_row: dict,
    text: str,
    checked: list[CheckedCitation],
) -> dict:
    """The final's cite-check report, checked before the transaction against
    the library as it was then, written by the system (the login's own role) in it."""
    with app.store.as_login(conn):
        return cite_report.record(
            conn,
            case=case,
            subject="final",
            version=internal_row["version"],
            text=text,
            citations=checked,
            case_law_id=internal_row["id"],
        )


def _unchanged(app: Context, case: str, pair: dict, labels: ShownLabels) -> FinalUploaded:
    with app.store.connection() as conn:
        cites = store.citations_of(conn, pair["case_law_id"])
        searchable = all(
            (sql_items.item_status(conn, get_corpus(key), pair[column]) or {})["searchable"]
            for key, column in (("internal", "case_law_id"), ("style", "style_document_id"))
        )
        awaiting = metadata.state_of(conn, pair["case_law_id"])
    return {
        "case_number": case,
        "pair_status": pair["status"],
        "case_law_id": pair["case_law_id"],
        "style_document_id": pair["style_document_id"],
        "version": pair["final_version"],
        "changed": False,
        "searchable": searchable,
        "blocks_missing": [],
        "citations": _counts(cites),
        "history_row": None,
        "learning_job": None,
        "labels": labels,
        "notes": ["the same final is already stored: nothing changed"],
        "metadata": awaiting,
    }


def _counts(cites: list[dict]) -> CitationCounts:
    """A decision's citations: linked to the library, missing from it (a ruling or reporter
    citation not there), ambiguous (several rulings fit: the chair picks)."""
    linked = sum(1 for c in cites if c["linked_case_law_id"] is not None)
    ambiguous = sum(1 for c in cites if c["linked_case_law_id"] is None and c["candidates"])
    missing = sum(
        1
        for c in cites
        if c["kind"] in ("ruling", "reporter")
        and c["linked_case_law_id"] is None
        and not c["candidates"]
    )
    return {"linked": linked, "missing": missing, "ambiguous": ambiguous}


# Kinds the citation graph keeps: a plan is recognized (not taken for a ruling) but not linked.
GRAPH_KINDS = ("ruling", "reporter", "statute")


def _graph_citations(case: str, text: str) -> list:
    """The decision's citations the graph keeps (not its own number)."""
    return [c for c in text_citations.extract(text) if c.ref != case and c.kind in GRAPH_KINDS]


def _citations(conn, case_law_id: int, found: list) -> CitationCounts:
    """Store the decision's citations (`_graph_citations`), (re)link the library's
    authorities, and refresh missing precedents and corroboration. Returns this decision's
    counts (`_counts`)."""
    store.lock_citations(conn)  # two finals citing one authority: one after the other
    store.replace_citations(conn, case_law_id, found)
    link_library(conn)
    return _counts(store.citations_of(conn, case_law_id))


class HistoryRow(TypedDict):
    """One row of the held-out style-distance history (`style_distance_history`, append-only),
    as `legal-ai learning history --json` and GET /api/learning/history show it."""

    id: int
    pair_id: int
    case_number: str
    final_version: int
    captured_at: str
    appeal_type: str | None
    outcome: str | None
    anti_pattern_total: int
    final_anti_pattern_total: int
    ratio_deviation: float | None
    change_percent: float
    word_edit_distance: int
    stylometric_delta: float | None
    profile_finals: int
    lesson_pool_size: int
    held_out: bool
    metrics: dict[str, Any]
    methodology_size: int | None


class History(TypedDict):
    """`legal-ai learning history --json`: the rows oldest first, and the `page` when paged."""

    rows: list[HistoryRow]
    page: NotRequired[PageInfo]


def history(app: Context, page: Page | None = None) -> History:
    """The style-distance rows by id; one `page` with its `page` object (paging.py), or all
    when `page` is None. Each row is the table's, its time as ISO text (HistoryRow: the
    table's columns, which tests/learning/test_learning.py holds it to)."""
    limit, offset = window(page)
    with app.store.connection() as conn:
        rows = store.history(conn, limit=limit, offset=offset)
    shown, info = page.cut(rows) if page is not None else (rows, None)
    history_rows = [_history_row(r) for r in shown]
    if info is None:
        return {"rows": history_rows}
    return {"rows": history_rows, "page": info}


def _history_row(row: dict) -> HistoryRow:
    """A stored history row as the answers show it: the table's columns, its time as text."""
    return cast(HistoryRow, jsonable(row))


def pairs(app: Context, page: Page | None = None) -> dict:
    """Every draft/final pair and its status, with the copy-policy report of its draft
    (`copy_report`, and `copy_summary`: passages per kind, citations per status); one `page`
    of them by id with its `page` object (paging.py), or all when `page` is None."""
    limit, offset = window(page)
    with app.store.connection() as conn:
        rows = store.list_pairs(conn, limit=limit, offset=offset)

    def shape(row: dict) -> dict:
        shown = jsonable(row)
        return {**shown, "copy_summary": copy_policy.summary(shown.get("copy_report"))}

    return listed("pairs", rows, page, shape)


def missing_precedents(app: Context) -> dict:
    """Rulings our finals cite that the library does not hold (open)."""
    with app.store.connection() as conn:
        return {"missing_precedents": [jsonable(r) for r in store.missing_precedents(conn)]}


def waiting(ctx: Context) -> dict[str, int]:
    """Her finals waiting for their learning (store/review_queue.finals_waiting): received and
    not yet learned from, and learned with lessons no promote folded yet."""
    with ctx.store.connection() as conn:
        return review_queue.finals_waiting(conn)

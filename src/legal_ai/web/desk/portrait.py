"""/training/portrait ("דיוקן הסגנון שלך", docs/desk.md): everything about her style that
reaches the writer's brief for one appeal type (knowledge/brief.writing_brief reads it; the
page reads the same sources), in plain Hebrew, each part with a link to where she withdraws or
vetoes it:

- the measured portrait of her finals (learning/pairs/portrait.measure: sentences, paragraphs,
  openings, transitions, register — units and the number of finals beside each; "not enough
  yet" under three finals), and the blocks' shares of a decision (held_out.chair_ratios: what
  the brief reads as golden ratios when the methodology sets none — else the methodology's);
- the methodology's rules the brief reads (block order, golden ratios, discussion rules,
  transition phrases, phrases to avoid, voice invariants, the content checklists), each list
  said with the profile it comes from (the general one or the type's) and a link to its field
  on /methodology, where she edits or removes it (a new version, undoable);
- the approved lessons (general and the type's, folded or not): a link to each one's veto on
  /methodology (lessons.review, the database's gate);
- the approved voice documents the brief gathers for this type (knowledge/voice.for_brief):
  a link to withdrawing each on /training/voice;
- the items she adopted from voice-fingerprint proposals (learning/lessons/proposal_review.py),
  whether each is still in the methodology, with a link to its list.

- her finals the brief draws examples from (channel B: exemplars, recurring passages, our draft
  against hers), each with a button that withdraws it from what the writer reads, or restores it
  (knowledge/withdrawn.py: a row in her name, the audit's gate; POST, her CSRF token).

The examples themselves are chosen afresh for each decision; what she can withdraw is the final
they come from."""

import hashlib
import threading
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from ...errors import AppError, NotFound
from ...knowledge import withdrawn as withdrawn_finals
from ...knowledge.portrait import sources as brief_sources
from ...knowledge.voice import BRIEF_DOCUMENTS
from ...learning import vocabulary as vocab
from ...learning.lessons import proposal_review as fingerprint_review
from ...learning.pairs import chair_ratios, portrait
from ...text.blocks import BLOCK_LABELS
from . import core
from .methodology_form import LISTS, OUTCOME_LABELS

PATH = "/training/portrait"
TYPES = vocab.APPEAL_TYPES
_CACHE: dict[tuple, tuple] = {}  # (finals' digest, profile) -> (measure, ratios); the last few
_LOCK = threading.Lock()
CACHED = 8


def _measured(finals: list[dict], profile: dict) -> tuple[dict, dict[str, float]]:
    """The portrait and the blocks' shares over her finals, kept for the same finals and
    profile (computed once per change, not per page)."""
    digest = hashlib.sha256()
    for row in finals:
        digest.update(row["content"].encode("utf-8", "surrogatepass"))
        digest.update(b"\0")
    key = (
        digest.hexdigest(),
        repr(sorted(profile.get("blocks", {}).items())),
        tuple(profile.get("transition_phrases", [])),
    )
    with _LOCK:
        hit = _CACHE.get(key)
    if hit:
        return hit
    measured = portrait.measure(
        [r["content"] for r in finals], list(profile.get("transition_phrases", []))
    )
    ratios, _ = chair_ratios(None, profile, finals)
    with _LOCK:
        if len(_CACHE) >= CACHED:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = (measured, ratios)
    return measured, ratios


def _origin(universal: dict, typed: dict, key: str) -> list[dict]:
    """A list of the merged profile with where each item comes from."""
    out = [{"text": t, "profile": "universal"} for t in universal.get(key) or []]
    seen = {i["text"] for i in out}
    out += [{"text": t, "profile": "typed"} for t in typed.get(key) or [] if t not in seen]
    return out


def _lessons(approved: list[dict], universal: dict, typed: dict, appeal_type: str) -> list[dict]:
    folded_in: dict[Any, str] = {}
    for where, profile in (("universal", universal), (appeal_type, typed)):
        for item in profile.get("lessons") or []:
            folded_in.setdefault(item.get("id"), where)
    out = []
    for row in approved:
        where = folded_in.get(row["id"]) or (row["appeal_type"] or "universal")
        out.append({**row, "folded": row["id"] in folded_in, "where": where})
    return out


def load(view: Any, appeal_type: str) -> dict:
    read = brief_sources(view, appeal_type)
    universal_row, typed_row, profile = read["universal"], read["typed"], read["profile"]
    finals, approved, documents = read["finals"], read["approved"], read["documents"]
    approved_documents, decided = read["approved_documents"], read["adopted"]
    universal = universal_row.get("profile") or {}
    typed = typed_row.get("profile") or {}
    measured, ratios = _measured(finals, profile)
    golden = profile.get("golden_ratios") or {}
    lists = {key: _origin(universal, typed, key) for key in LISTS}
    checklists = {
        outcome: _origin(
            universal.get("content_checklists") or {},
            typed.get("content_checklists") or {},
            outcome,
        )
        for outcome in OUTCOME_LABELS
    }
    adopted = []
    for item in decided:
        where = item["appeal_type"]
        if where not in ("universal", appeal_type):
            continue
        source = universal if where == "universal" else typed
        target = fingerprint_review.TARGET.get(item["field"], "voice_invariants")
        adopted.append(
            {**item, "target": target, "kept": item["text"] in (source.get(target) or [])}
        )
    out = {r["case_number"]: r for r in withdrawn_finals.withdrawn(view)}
    cases = [r["case_number"] for r in finals if r["case_number"]]
    return {
        "appeal_type": appeal_type,
        # Her finals the examples come from, each withdrawn (with when) or read by the writer.
        "finals": [{"case_number": c, "withdrawn": out.get(c)} for c in dict.fromkeys(cases)],
        "measured": measured,
        "shares": golden or ratios,
        "shares_from": "methodology" if golden else ("finals" if ratios else None),
        "block_order": profile.get("blocks", {}).get("order", []),
        "lists": lists,
        "checklists": checklists,
        "lessons": _lessons(approved, universal, typed, appeal_type),
        "documents": documents,
        "approved_documents": approved_documents,
        "brief_documents": BRIEF_DOCUMENTS,
        "adopted": adopted,
    }


def routes(api: FastAPI, signed_in: Any) -> None:
    Chair = Annotated[core.Desk, Depends(signed_in)]

    @api.get(PATH, include_in_schema=False)
    async def portrait_page(request: Request, desk: Chair, type: str | None = None) -> Response:
        appeal_type = type or TYPES[0]
        if appeal_type not in TYPES:
            raise NotFound("אין סוג ערר כזה; בחרי אחד מהסוגים שבראש הדף")
        data = await run_in_threadpool(load, desk.view, appeal_type)
        return core.render(
            request,
            "portrait.html",
            desk=desk,
            types=TYPES,
            list_labels=LISTS,
            outcome_labels=OUTCOME_LABELS,
            block_labels=BLOCK_LABELS,
            min_finals=portrait.MIN_FINALS,
            long_sentence=portrait.LONG_SENTENCE,
            said=request.query_params.get("said"),
            **data,
        )

    @api.post(PATH + "/finals", include_in_schema=False)
    async def withdraw_or_restore(request: Request, desk: Chair) -> Response:
        """Her final withdrawn from what the writer reads, or restored (knowledge/withdrawn)."""
        form = await core.form_of(request, desk)
        appeal_type = str(form.get("type") or TYPES[0])
        appeal_type = appeal_type if appeal_type in TYPES else TYPES[0]
        acts = {"withdraw": withdrawn_finals.withdraw, "restore": withdrawn_finals.restore}
        act = acts.get(str(form.get("act")))
        if act is None:
            raise NotFound("אין פעולה כזו; חזרי לדף הדיוקן ונסי שוב")
        try:
            await run_in_threadpool(act, desk.view, str(form.get("case_number") or ""))
        except AppError as exc:  # not a final of hers (404), a case number that is not one (400)
            status = 404 if isinstance(exc, NotFound) else 400
            return core.error_page(request, status, core.in_hebrew(exc), desk)
        said = "withdrawn" if act is withdrawn_finals.withdraw else "restored"
        return RedirectResponse(f"{PATH}?type={appeal_type}&said={said}#examples", 303)

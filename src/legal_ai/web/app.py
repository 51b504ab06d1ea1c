"""The HTTP API of the learning loop. Thin: authenticate, parse, call the same services as the
CLI on an App acting for who authenticated, map errors once (web/errors.py).

Every /api route needs `Authorization: Bearer <token>`: the chair's token (LEGAL_AI_CHAIR_TOKEN)
or an agent's (LEGAL_AI_AGENT_TOKEN; the older LEGAL_AI_API_TOKEN is an agent named `api`).
The services run on `legal.acting_as(principal)`: its transactions run under the principal's
database role, and the actor the audit records is the principal's, never a name from the body.
Chair-only routes (lesson review, promote, methodology edit and restore, final upload, a
principle's or canonical principle's review, a canonical statement's edit and revert, marking a
case as exemplary, a voice document's and an enrichment's review) refuse an
agent with 403 before anything is read or written. Without any credential configured the app is
not built.

Uploads stream to a private folder under HOME/uploads (web/uploads.py) and the blocking work
(extraction, embedding, the database) runs in a worker thread, so one upload never stalls other
requests. `/docs`, `/redoc` and `/openapi.json` are off; LEGAL_AI_API_SCHEMA=true serves
`/openapi.json` to authenticated callers.

`GET /api/search` takes `legal-ai search`'s parameters and answers its `--json`; `/mcp` serves
the MCP tools over streamable HTTP with the same tokens (web/remote.py).

Case numbers contain `/` (`ערר (מרכז) 1042/23`), so case routes take the rest of the path
(`/api/cases/ערר (מרכז) 1042/23/final/upload`, URL-encoded by the client).

No `from __future__ import annotations` here: FastAPI reads the routes' annotations, and the
dependencies they name live in `create_app`'s scope."""

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Header, Query, Request
from pydantic import BaseModel, ConfigDict, Field, field_validator

from .. import auth
from ..app import App
from ..config import Settings
from ..errors import Conflict, InvalidInput
from ..knowledge import brief, contrastive, exemplars, templates, voice
from ..knowledge import curator as curator_figures
from ..learning import (
    canonical,
    enrichment,
    extraction_requests,
    feedback,
    finals,
    lessons,
    methodology,
    principles,
    synthesis,
)
from ..learning import panel_stats as panel_figures
from ..ops import scheduler as schedule
from ..ops.tasks import reminders as listed
from ..paging import DEFAULT_LIMIT, MAX_LIMIT, MAX_OFFSET, Page
from ..retrieval.tools import corpus_tool
from ..store import jsonable
from . import desk, errors, uploads
from .remote import McpOverHttp


class Body(BaseModel):
    """A JSON request body: unknown keys (an `actor`, a `reviewed_by`) are refused, and no
    string may carry a NUL character."""

    model_config = ConfigDict(extra="forbid")

    @field_validator("*", mode="after")
    @classmethod
    def _no_nul(cls, value: Any) -> Any:
        if _has_nul(value):
            raise ValueError("contains a NUL character")
        return value


def _has_nul(value: Any) -> bool:
    """Whether a NUL character is in a string, or in a string inside lists and dicts."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_has_nul(k) or _has_nul(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_has_nul(v) for v in value)
    return False


class ReviewBody(Body):
    decision: str = Field(max_length=20)
    reason: str | None = Field(default=None, max_length=2000)
    # The status the caller saw: when the item is no longer in it, nothing changes (409).
    expected_status: str | None = Field(default=None, max_length=20)


class PromoteBody(Body):
    lesson_ids: list[int] = Field(default_factory=list, max_length=200)
    phrases: list[str] = Field(default_factory=list, max_length=200)


class CuratorBody(Body):
    findings: list[str] = Field(max_length=20)


class MethodologyBody(Body):
    changes: dict[str, Any]
    reason: str = Field(default="edit", max_length=2000)


class RestoreBody(Body):
    version: int = Field(ge=1)
    reason: str | None = Field(default=None, max_length=2000)


class ExtractBody(Body):
    doc_id: str | None = Field(default=None, max_length=500)
    corpus: str | None = Field(default=None, max_length=20)
    all: bool = False


class CullBody(Body):
    apply: bool = False


class StatementBody(Body):
    statement: str = Field(max_length=4000)
    reason: str | None = Field(default=None, max_length=2000)


class RevertBody(Body):
    version: int | None = Field(default=None, ge=1)
    reason: str | None = Field(default=None, max_length=2000)


class MarkBody(Body):
    note: str | None = Field(default=None, max_length=2000)


class FeedbackBody(Body):
    category: str = Field(max_length=100)
    text: str = Field(max_length=20000)
    case_number: str | None = Field(default=None, max_length=200)
    block: str | None = Field(default=None, max_length=100)


def create_app(settings: Settings, legal: Any = None) -> FastAPI:
    """The API over one App (created here unless given). Refuses to build without a credential."""
    auth.agent_tokens(settings)  # a malformed list, or the chair's token reused: refused now
    if not auth.configured(settings):
        raise InvalidInput(
            "set LEGAL_AI_CHAIR_TOKEN and/or LEGAL_AI_AGENT_TOKEN: the HTTP API never runs "
            "without a credential"
        )
    if legal is None:
        legal = App(settings)
    upload_root = settings.home / "uploads"
    uploads.sweep(upload_root)

    schema = "/openapi.json" if settings.api_schema else None

    mcp_http = McpOverHttp(settings, legal)  # the MCP tools at /mcp (web/remote.py)
    api = FastAPI(title="legal-ai", docs_url=None, redoc_url=None, openapi_url=None,
                  lifespan=mcp_http.lifespan)  # fmt: skip
    errors.install(api, settings)
    max_file = settings.max_file_mb * 2**20
    api.add_middleware(errors.Edge, max_file=max_file)

    def principal(authorization: Annotated[str | None, Header()] = None) -> auth.Principal:
        scheme, _, token = (authorization or "").partition(" ")
        return auth.authenticate(settings, token if scheme.lower() == "bearer" else None)

    def acting(who: Annotated[auth.Principal, Depends(principal)]) -> Any:
        return legal.acting_as(who, surface="api")  # its searches are logged (telemetry.py)

    def chair(what: str) -> Callable[..., Any]:
        def acting_chair(who: Annotated[auth.Principal, Depends(principal)]) -> Any:
            auth.require_chair(who, what)
            return legal.acting_as(who, surface="api")

        return acting_chair

    Acting = Annotated[Any, Depends(acting)]

    def page(limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = DEFAULT_LIMIT,
             offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0) -> Page:  # fmt: skip
        """`?limit=&offset=` of a list route (paging.py): outside 1..500 or below 0, 400."""
        return Page(limit, offset)

    Paged = Annotated[Page, Depends(page)]
    Limit = Annotated[int, Query(ge=1, le=MAX_LIMIT)]
    Offset = Annotated[int, Query(ge=0, le=MAX_OFFSET)]

    @api.get("/healthz")
    def healthz() -> dict:
        return {"ok": True}

    if schema:

        @api.get(schema, include_in_schema=False)
        def openapi(_: Annotated[auth.Principal, Depends(principal)]) -> dict:
            return api.openapi()

    async def uploaded(request: Request, view: Any, fields: frozenset[str],
                       service: Callable[..., dict], case: str) -> dict:  # fmt: skip
        """Stream the upload into its private folder, run `service` on it in a worker thread;
        the folder goes when the request ends, and errors name the file's safe name only."""
        return await uploads.handled(
            request, upload_root, fields=fields, max_bytes=max_file,
            work=lambda upload: service(view, case, upload.path,
                                        source_name=f"upload:{upload.name}", **upload.fields),
        )  # fmt: skip

    chair_final = chair("uploading a final decision (it becomes a record in the chair's name)")

    @api.post("/api/cases/{case:path}/draft/upload")
    async def draft_upload(case: str, request: Request, view: Acting) -> dict:
        return await uploaded(request, view, uploads.DRAFT_FIELDS, finals.add_draft, case)

    @api.post("/api/cases/{case:path}/final/upload")
    async def final_upload(case: str, request: Request,
                           view: Annotated[Any, Depends(chair_final)]) -> dict:  # fmt: skip
        return await uploaded(request, view, uploads.FINAL_FIELDS, finals.upload_final, case)

    @api.post("/api/cases/{case:path}/promote")
    def promote(case: str, body: PromoteBody,
                view: Annotated[Any, Depends(chair("promoting lessons"))]) -> dict:  # fmt: skip
        return lessons.promote(view, case, body.lesson_ids, body.phrases)

    @api.post("/api/cases/{case:path}/curator-findings")
    def curator(case: str, body: CuratorBody, view: Acting) -> dict:
        return lessons.record_curator_findings(view, case, body.findings)

    @api.get("/api/learning/style-distance-history")
    def style_history(view: Acting, paged: Paged) -> dict:
        return finals.history(view, paged)

    @api.get("/api/learning/pairs")
    def pairs(view: Acting, paged: Paged) -> dict:
        return finals.pairs(view, paged)

    @api.get("/api/learning/curator-stats")
    def curator_stats(view: Acting) -> dict:
        return curator_figures.stats(view)

    @api.get("/api/learning/panel-stats")
    def panel_stats(view: Acting) -> dict:
        return panel_figures.stats(view)

    @api.get("/api/lessons")
    def list_lessons(view: Acting, paged: Paged, status: str | None = None,
                     case: str | None = None) -> dict:  # fmt: skip
        return lessons.list_lessons(view, status, case, paged)

    @api.post("/api/lessons/{lesson_id}/review")
    def review(lesson_id: int, body: ReviewBody,
               view: Annotated[Any, Depends(chair("reviewing a lesson"))]) -> dict:  # fmt: skip
        return lessons.review(view, lesson_id, body.decision, reason=body.reason,
                              expected_status=body.expected_status)  # fmt: skip

    @api.get("/api/methodology/{appeal_type}")
    def show_methodology(appeal_type: str, view: Acting) -> dict:
        return methodology.show(view, appeal_type)

    @api.post("/api/methodology/{appeal_type}")
    def edit_methodology(
        appeal_type: str, body: MethodologyBody,
        view: Annotated[Any, Depends(chair("editing the methodology"))],
    ) -> dict:  # fmt: skip
        return methodology.edit(view, appeal_type, body.changes, reason=body.reason)

    @api.get("/api/methodology/{appeal_type}/versions")
    def methodology_versions(appeal_type: str, view: Acting) -> dict:
        return methodology.history(view, appeal_type)

    @api.get("/api/methodology/{appeal_type}/diff")
    def methodology_diff(appeal_type: str, view: Acting, a: int, b: int) -> dict:
        return methodology.diff(view, appeal_type, a, b)

    @api.post("/api/methodology/{appeal_type}/restore")
    def restore_methodology(
        appeal_type: str, body: RestoreBody,
        view: Annotated[Any, Depends(chair("restoring a methodology version"))],
    ) -> dict:  # fmt: skip
        return methodology.restore(view, appeal_type, body.version, reason=body.reason)

    @api.post("/api/chair-feedback")
    def record_feedback(body: FeedbackBody, view: Acting) -> dict:
        return feedback.record(view, body.category, body.text, case=body.case_number,
                               block=body.block)  # fmt: skip

    @api.get("/api/chair-feedback")
    def list_feedback(view: Acting, case: str | None = None, category: str | None = None,
                      limit: Limit = 50, offset: Offset = 0) -> dict:  # fmt: skip
        return feedback.list_feedback(view, case=case, category=category, limit=limit,
                                      offset=offset)  # fmt: skip

    @api.get("/api/chair-feedback/weekly-summary")
    def weekly_summary(view: Acting) -> dict:
        return feedback.weekly_summary(view)

    # -- legal principles (issue 13; README "Legal principles") -----------------------------
    @api.get("/api/principles")
    def list_principles(view: Acting, paged: Paged, status: str | None = None) -> dict:
        return principles.list_principles(view, status, paged)

    @api.post("/api/principles/{principle_id}/review")
    def review_principle(principle_id: int, body: ReviewBody,
                         view: Annotated[Any, Depends(chair("reviewing a principle"))]) -> dict:  # fmt: skip
        return jsonable(view.review_principle(principle_id, body.decision, body.reason,
                                              body.expected_status))  # fmt: skip

    # Queued, never run in the request (learning/extraction_requests): an agent queues one
    # named item (idempotent); a corpus or `all` is the chair's (403 for an agent).
    @api.post("/api/principles/extract", status_code=202)
    def extract_principles(body: ExtractBody, view: Acting) -> dict:
        return extraction_requests.request(view, corpus=body.corpus, doc_id=body.doc_id,
                                           all=body.all)  # fmt: skip

    @api.post("/api/principles/cull")
    def cull_principles(body: CullBody, view: Acting) -> dict:
        return principles.cull(view, apply=body.apply)  # applying it is the chair's (403)

    @api.get("/api/canonical-principles")
    def list_canonicals(view: Acting, paged: Paged, status: str | None = None) -> dict:
        return canonical.list_canonicals(view, status, paged)

    @api.post("/api/canonical-principles/synthesize", status_code=202)
    def synthesize_canonicals(view: Acting) -> dict:
        return synthesis.request(view)  # the worker synthesizes; a request never runs a model

    @api.get("/api/canonical-principles/{canonical_id}")
    def show_canonical(canonical_id: int, view: Acting) -> dict:
        return canonical.show(view, canonical_id)

    @api.post("/api/canonical-principles/{canonical_id}/review")
    def review_canonical(
        canonical_id: int, body: ReviewBody,
        view: Annotated[Any, Depends(chair("reviewing a canonical principle"))],
    ) -> dict:  # fmt: skip
        return canonical.review(
            view, canonical_id, body.decision, body.reason, body.expected_status
        )

    @api.post("/api/canonical-principles/{canonical_id}/statement")
    def edit_canonical(
        canonical_id: int, body: StatementBody,
        view: Annotated[Any, Depends(chair("editing a canonical statement"))],
    ) -> dict:  # fmt: skip
        return canonical.edit(view, canonical_id, body.statement, body.reason)

    @api.post("/api/canonical-principles/{canonical_id}/revert")
    def revert_canonical(
        canonical_id: int, body: RevertBody,
        view: Annotated[Any, Depends(chair("reverting a canonical statement"))],
    ) -> dict:  # fmt: skip
        return canonical.revert(view, canonical_id, body.version, body.reason)

    # -- deep-read voice documents (issue 14 item 4; README "What the writer reads") ---------
    @api.post("/api/cases/{case:path}/mark-exemplary")
    def mark_exemplary(case: str, body: MarkBody,
                       view: Annotated[Any, Depends(chair("marking a case as exemplary"))]
                       ) -> dict:  # fmt: skip
        return voice.mark(view, case, body.note)

    @api.get("/api/voice-documents")
    def list_voice_documents(view: Acting, paged: Paged, status: str | None = None) -> dict:
        return voice.list_documents(view, status, paged)

    @api.post("/api/voice-documents/run", status_code=202)
    def run_voice_documents(view: Acting) -> dict:
        return voice.request(view)  # the worker writes them; a request never runs a model

    @api.get("/api/voice-documents/{document_id}")
    def show_voice_document(document_id: int, view: Acting) -> dict:
        return voice.show(view, document_id)

    @api.post("/api/voice-documents/{document_id}/review")
    def review_voice_document(
        document_id: int, body: ReviewBody,
        view: Annotated[Any, Depends(chair("reviewing a voice document"))],
    ) -> dict:  # fmt: skip
        return voice.review(view, document_id, body.decision, body.reason, body.expected_status)

    # -- enrichment of internal decisions (issue 15 item 3; README "Upkeep on arrival") --------
    @api.get("/api/enrichments")
    def list_enrichments(view: Acting, paged: Paged, status: str | None = None) -> dict:
        return enrichment.list_enrichments(view, status, paged)

    @api.get("/api/enrichments/{enrichment_id}")
    def show_enrichment(enrichment_id: int, view: Acting) -> dict:
        return enrichment.show(view, enrichment_id)

    @api.post("/api/enrichments/{enrichment_id}/review")
    def review_enrichment(
        enrichment_id: int, body: ReviewBody,
        view: Annotated[Any, Depends(chair("reviewing an enrichment"))],
    ) -> dict:  # fmt: skip
        return enrichment.review(
            view, enrichment_id, body.decision, body.reason, body.expected_status
        )

    # -- block exemplars and templates (issue 14 items 1-2; README "What the writer reads") --
    @api.get("/api/exemplars/{block}")
    def block_exemplars(block: str, view: Acting, appeal_type: str, outcome: str | None = None,
                        case: str | None = None, query: str | None = None, limit: int = 5,
                        per_final: int = 1) -> dict:  # fmt: skip
        return exemplars.get_block_exemplars(view, block, appeal_type, outcome=outcome, case=case,
                                             query=query, limit=limit, per_final=per_final)  # fmt: skip

    @api.get("/api/templates")
    def block_templates(view: Acting, block: str | None = None,
                        appeal_type: str | None = None) -> dict:  # fmt: skip

        return templates.get_templates(view, block=block, appeal_type=appeal_type)

    @api.get("/api/contrastive/{block}")
    def contrastive_examples(block: str, view: Acting, appeal_type: str | None = None,
                             k: int = 5) -> dict:  # fmt: skip

        return contrastive.get_contrastive_examples(view, block, appeal_type, k)

    @api.get("/api/brief")
    def writing_brief(view: Acting, appeal_type: str, outcome: str | None = None,
                      case: str | None = None, max_chars: int | None = None) -> dict:  # fmt: skip
        return brief.writing_brief(view, appeal_type, outcome, case=case, max_chars=max_chars)

    @api.get("/api/content-checklist")
    def content_checklist(view: Acting, appeal_type: str, outcome: str | None = None) -> dict:
        return brief.content_checklist(view, appeal_type, outcome)

    @api.get("/api/lessons-for-outcome")
    def lessons_for_outcome(view: Acting, appeal_type: str, outcome: str | None = None) -> dict:
        return brief.lessons_for_outcome(view, appeal_type, outcome)

    # -- scheduled jobs (issue 15 item 1; README "Scheduled jobs") ---------------------------
    # Jobs are operations: they propose, reconcile and re-index, and run as the agent
    # `scheduler` whoever asks. Running one on demand is the chair's (403 for an agent), and it
    # is handed to the worker (schedule.request_run): nothing runs in the request.
    @api.get("/api/jobs")
    def list_jobs(view: Acting) -> dict:
        return schedule.list_jobs(view)

    @api.post("/api/jobs/{name}/run", status_code=202)
    def run_job(name: str,
                view: Annotated[Any, Depends(chair("running a scheduled job"))]) -> dict:  # fmt: skip

        report = schedule.request_run(view, name)
        if report["outcome"] == "busy":
            raise Conflict(report["note"])
        return report

    @api.get("/api/jobs/runs")
    def job_runs(view: Acting, name: str | None = None, limit: Limit = 20,
                 offset: Offset = 0) -> dict:  # fmt: skip

        return schedule.runs(view, name, limit, offset)

    @api.get("/api/reminders")
    def reminders(view: Acting, paged: Paged) -> dict:
        return listed(view, page=paged)

    # -- search over HTTP (issue 15 item 6; README "Agents over the network") ----------------
    @api.get("/api/search")
    def search(view: Acting, query: str, corpus: str, practice_area: str | None = None,
               case_number: str | None = None, court: str | None = None,
               date_from: str | None = None, date_to: str | None = None, limit: int = 10,
               mode: str = "hybrid") -> dict:  # fmt: skip
        """`legal-ai search --json`: the corpus's tool, its filters, the same JSON."""
        tool, filters = corpus_tool(corpus, {
            "practice_area": practice_area, "case_number": case_number, "court": court,
            "date_from": date_from, "date_to": date_to,
        })  # fmt: skip
        return view.tool(tool, query=query, limit=limit, mode=mode, **filters)

    mcp_http.mount(api)

    desk.mount(api, legal, settings)  # the chair's pages (web/desk): sign-in, search, training
    return api

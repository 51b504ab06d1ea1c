"""One declared list of settings, read from `LEGAL_AI_*` environment variables (and a few
unprefixed names that DESIGN.md §8 fixes, such as `RRF_K`).

Build it once (`Settings()`) and pass it in; deep modules never read the environment.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, field_validator
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)
from pydantic_settings.sources.utils import parse_env_vars

from .config_checks import (
    budgets_of,
    default_home,
    known_analyzer,
    model_budgets,
    proxy_addresses,
    reranker_spec,
)


class Settings(BaseSettings):
    """Every setting of legal-ai, typed, defaulted and described (docs/configuration.md)."""

    # An empty variable (`LEGAL_AI_BACKUP_DIR=`) is unset, for every setting: its default holds.
    model_config = SettingsConfigDict(env_prefix="LEGAL_AI_", extra="ignore", env_ignore_empty=True)

    home: Path = Field(
        default_factory=default_home,
        description="Data directory: the embedded PostgreSQL cluster lives in HOME/pgdata.",
    )
    database_url: str | None = Field(
        default=None,
        description="Connection URL of an external PostgreSQL (>= 15, pgvector >= 0.8). "
        "When unset, the embedded server under HOME is started and used.",
    )
    embedder: str = Field(
        default="e5-local",
        description="Embedder id: `e5-local` (offline, 384-d) or `voyage` (1024-d, needs "
        "VOYAGE_API_KEY).",
    )
    embedding_cache_dir: Path | None = Field(
        default=None,
        description="A folder of embeddings that several homes share (one file per embedder "
        "and text hash), read when the database's own cache misses and before the model: the "
        "homes of one machine (the demo's, a staging copy, a test run's fresh ones) embed each "
        "text once. Only the account that runs legal-ai may write it. Unset: the database's "
        "cache only.",
    )
    voyage_api_key: str | None = Field(
        default=None,
        validation_alias=AliasChoices("VOYAGE_API_KEY", "LEGAL_AI_VOYAGE_API_KEY"),
        description="API key for Voyage embeddings.",
    )
    voyage_model: str = Field(default="voyage-3", description="Voyage model name (1024-d).")
    voyage_base_url: str | None = Field(
        default=None, description="Override of the Voyage API address (a proxy or a test server)."
    )
    multimodal_enabled: bool = Field(
        default=False,
        validation_alias=AliasChoices("MULTIMODAL_ENABLED", "LEGAL_AI_MULTIMODAL_ENABLED"),
        description="The image leg: embed PDF page images (Voyage multimodal) and search them.",
    )
    voyage_multimodal_model: str = Field(
        default="voyage-multimodal-3", description="Voyage multimodal model (1024-d)."
    )
    image_weight: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description="RRF weight of the image leg (the only weighted channel).",
    )
    chunk_tokens: int = Field(
        default=150,
        ge=64,
        le=480,
        description="Target chunk size in embedder tokens (150 beat 300 and 100 on the dev sets: "
        "docs/evaluation.md).",
    )
    chunk_overlap_tokens: int = Field(
        default=20, ge=0, le=200, description="Overlap carried from one chunk into the next."
    )
    max_file_mb: int = Field(
        default=50,
        ge=1,
        description="Files larger than this are rejected before they are read (bounded memory).",
    )
    max_decision_mb: int = Field(
        default=10,
        ge=1,
        description="Our draft and the chair's signed final as PDF or DOCX (the desk's and the "
        "API's uploads): files larger than this are refused before anything is stored. A "
        "decision runs 20-80 thousand characters (under 200 KB of text); its Word or PDF file "
        "adds fonts, a logo and a scanned signature, a few MB at most. A ruling uploaded for a "
        "missing precedent may be a long or scanned PDF (its scan goes to the OCR queue): "
        "LEGAL_AI_MAX_FILE_MB bounds it.",
    )
    max_decision_text_mb: int = Field(
        default=2,
        ge=1,
        description="Our draft and her final as TXT or MD: 2 MB of UTF-8 is about a million "
        "Hebrew characters, ten times the longest decision.",
    )
    max_decision_chars: int = Field(
        default=1_000_000,
        ge=10_000,
        description="A draft or final whose text comes to more characters than this is refused "
        "while it is read (a Word file's text can be much larger than the file): the copy "
        "check and the analysis of an upload take time in proportion to its text.",
    )
    pool_max_size: int = Field(default=4, ge=1, description="Connection pool size.")
    request_lock_timeout_s: float = Field(
        default=5.0,
        gt=0,
        le=600,
        description="HTTP requests (the desk, the API, MCP over HTTP): seconds a statement of a "
        "request's transaction waits for a lock (a row, a table, a case's advisory lock) before "
        "it is stopped, the transaction rolled back and the request answered 503 (busy, try "
        "again) (PostgreSQL lock_timeout). The worker and the CLI are not bound by it.",
    )
    request_statement_timeout_s: float = Field(
        default=30.0,
        gt=0,
        le=3600,
        description="HTTP requests: seconds one statement of a request's transaction may run "
        "before it is stopped, the transaction rolled back and the request answered 503 "
        "(PostgreSQL statement_timeout). An upload's reading, copy check and analysis run "
        "before its transaction, which only writes.",
    )
    progress_interval_s: float = Field(
        default=10.0,
        gt=0,
        le=3600,
        description="Long commands (ingest, reindex, eval, db backup) without a terminal: seconds "
        "between their JSON progress lines on stderr (on a terminal they draw a bar).",
    )
    pool_timeout_s: float = Field(
        default=10.0,
        gt=0,
        le=300,
        description="HTTP API: seconds a request waits for a free pooled connection before it is "
        "answered 503 (the database is busy).",
    )
    rrf_k: int = Field(
        default=3,
        ge=1,
        validation_alias=AliasChoices("RRF_K", "LEGAL_AI_RRF_K"),
        description="k of Reciprocal Rank Fusion (Cormack et al. 2009). 3 beat DESIGN's 60 and "
        "20 on all three dev sets and tied 5 (docs/evaluation.md).",
    )
    leg_window: int = Field(
        default=50, ge=1, le=1000, description="Hits each retrieval leg contributes to fusion."
    )
    bm25_hybrid_enabled: bool = Field(
        default=True,
        validation_alias=AliasChoices("BM25_HYBRID_ENABLED", "LEGAL_AI_BM25_HYBRID_ENABLED"),
        description="When false, hybrid search falls back to the semantic leg alone.",
    )
    analyzer: str = Field(
        default="he-fold-prefix4-hspell-v1",
        description="Hebrew analyzer for the lexical index and queries (see docs/evaluation.md); "
        "changing it needs `legal-ai reindex` (no re-embedding). The default uses hspell's "
        "lemmas and falls back to he-fold-prefix4-v1 (with a warning) without hspell.",
    )
    lexical_synonyms: bool = Field(
        default=True,
        description="Lexical leg: add the statute's wording for colloquial phrases in the query "
        "(מס השבחה -> היטל השבחה, ...).",
    )
    lexical_candidate_budget: int = Field(
        default=2000,
        ge=1,
        description="Lexical leg: query terms are kept rarest first while their summed document "
        "frequency stays within this many units (bounds the rows BM25 scores).",
    )
    chunk_context: Literal["off", "legislation", "all"] = Field(
        default="legislation",
        description="Lexical index: the chunks analyzed after a line of their context, their text "
        "and span unchanged: `legislation` (a section's law, chapter and side heading; it raised "
        "the held-out folds of both statute dev sets), `all` (also a ruling's or decision's "
        "court, parties and paragraph number; not measured: no dev set holds rulings) or `off`. "
        "A change makes those chunks' analysis stale until `legal-ai reindex` "
        "(docs/search.md).",
    )
    search_parallel_legs: bool = Field(
        default=True,
        description="Hybrid search: run the semantic legs beside the lexical legs, on a second "
        "pooled connection taken only when one is free at once (a search holds at most two; "
        "under load it runs its legs one after the other on one). Off: always one after the "
        "other. The ranking is the same either way.",
    )
    search_area_indexes: bool = Field(
        default=True,
        description="Semantic leg under a practice-area filter: read the area's own HNSW index "
        "when it has one (migration 0052; `legal-ai db area-indexes` makes them). Off: the "
        "partition's index with pgvector's iterative scan, as before. The hits are the same "
        "either way (measured: recall@10 against exact search, docs/benchmarks.md).",
    )
    reference_lookups_per_query: int = Field(
        default=8,
        ge=0,
        le=100,
        description="Reference leg: at most this many sections and rulings named in one query are "
        "looked up (each is a regular expression matched against the corpus; sections first, in "
        "the order named). 0 turns the leg off.",
    )
    reranker: str | None = Field(
        default=None,
        description="Second-phase reranker of every search (off when unset): the top "
        "LEGAL_AI_RERANK_TOP_N hits of the fused list reordered by a cross-encoder's relevance "
        "(fusion stays RRF). `voyage:MODEL[@BASE_URL]` (VOYAGE_API_KEY), `cohere:MODEL[@BASE_URL]` "
        "(COHERE_API_KEY) or `onnx:/path/to/folder` (a cross-encoder exported to ONNX beside its "
        "tokenizer.json, run locally). A reranker that fails or runs past "
        "LEGAL_AI_RERANK_BUDGET_MS leaves the fused order, and the hits say so (docs/search.md).",
    )
    rerank_top_n: int = Field(
        default=30,
        ge=2,
        le=200,
        description="How many of the fused list's first hits the reranker reorders (the rest "
        "follow in fused order).",
    )
    rerank_budget_ms: int = Field(
        default=2000,
        ge=10,
        le=60000,
        description="Milliseconds the reranker may take in one search; past it the search "
        "answers in the fused order and its hits say so.",
    )
    cohere_api_key: str | None = Field(
        default=None,
        validation_alias=AliasChoices("COHERE_API_KEY", "CO_API_KEY", "LEGAL_AI_COHERE_API_KEY"),
        description="API key for a Cohere reranker (LEGAL_AI_RERANKER=cohere:...).",
    )
    max_per_case_law: int = Field(
        default=3,
        ge=1,
        validation_alias=AliasChoices("MAX_PER_CASE_LAW", "LEGAL_AI_MAX_PER_CASE_LAW"),
        description="Diversity cap: at most this many hits per ruling or document.",
    )
    hnsw_max_scan_tuples: int = Field(
        default=20000,
        ge=1000,
        description="Bound on pgvector's iterative HNSW scan for filtered searches.",
    )
    hnsw_ef_search: int = Field(
        default=100,
        ge=10,
        le=1000,
        description="pgvector's hnsw.ef_search for the semantic leg (candidates kept per scan) "
        "in a partition of up to 40,000 units; a larger partition scans wider, by the square "
        "root of its size (200 at 160k, 317 at 400k, at most 1000). At or above the leg's "
        "window (50) one scan fills it; at 40k chunks 100 kept recall@10 at 0.95 where "
        "pgvector's default 40 gave 0.78 (docs/benchmarks.md, docs/scaling.md).",
    )
    committee_chair: str | None = Field(
        default=None,
        description="Chair of internal committee decisions that name none (and whose case names "
        "none). Unset: such a decision is refused with what to set; no real record gets a "
        "fictional default (the demo sets its own).",
    )
    chair_token: str | None = Field(
        default=None,
        description="The chair's token: whoever presents it acts as the chair (HTTP `Authorization: "
        "Bearer`, or in the environment of a CLI script acting as her). Only the chair approves, "
        "rejects or vetoes substance, promotes, edits the methodology and approves principles.",
    )
    agent_token: str | None = Field(
        default=None,
        description="Tokens of the AI writing agents: one token, or a comma-separated list of "
        "`name=token`. Agents search, read the brief, relay feedback (kept as theirs), propose "
        "curator findings, queue one ruling's extraction and upload drafts; they never decide what "
        "the chair gates, nor act as the system's panel.",
    )
    api_token: str | None = Field(
        default=None,
        description="Older single credential of the HTTP API; it acts as an agent named `api` "
        "(never as the chair). Prefer LEGAL_AI_AGENT_TOKEN.",
    )
    desk_session_idle_minutes: int = Field(
        default=720,
        ge=1,
        le=1440,
        description="The chair's desk: minutes a signed-in session may sit unused before it ends "
        "(she signs in again); every session ends 24 hours after sign-in regardless.",
    )
    max_open_proposals: int = Field(
        default=50,
        ge=1,
        le=200,
        description="Agents: proposals (curator findings, lessons) one agent may have waiting "
        "for the chair at once; past it HTTP and MCP answer 429 and nothing is written. The "
        "database refuses past 200 per agent name (1000 per agent role or login) whatever this "
        "says.",
    )
    max_new_cases: int = Field(
        default=30,
        ge=1,
        le=200,
        description="Agents: new cases one agent may open (by uploading a draft of a case not yet "
        "known) per LEGAL_AI_NEW_CASES_WINDOW_MINUTES; past it 429 with Retry-After and nothing "
        "is written. The database refuses past 200 per agent role or login in an hour.",
    )
    new_cases_window_minutes: int = Field(
        default=60,
        ge=1,
        le=10080,
        description="Agents: the window LEGAL_AI_MAX_NEW_CASES counts in, in minutes.",
    )
    trusted_proxies: str = Field(
        default="",
        description="HTTP API and desk: the reverse proxies (comma-separated IP addresses or "
        "networks, e.g. `127.0.0.1` or `10.0.0.0/24,::1`) whose X-Forwarded-For and "
        "X-Forwarded-Proto are believed; the client's address (the sign-in throttle's key) is "
        "then the last one in X-Forwarded-For that is not one of them. Empty (the default): no "
        "proxy header is believed, from anyone, and `legal-ai serve` turns uvicorn's off.",
    )
    api_schema: bool = Field(
        default=False,
        description="HTTP API: serve the OpenAPI schema at /openapi.json to callers with a valid "
        "token. /docs and /redoc are never served.",
    )
    schedule_timezone: str = Field(
        default="Asia/Jerusalem",
        description="Time zone of the scheduled jobs' cron expressions (`legal-ai jobs list`; "
        "docs/deployment.md: Scheduled jobs), and of the day the models' budgets count "
        "(LEGAL_AI_MODEL_BUDGETS).",
    )
    stale_case_days: int = Field(
        default=30,
        ge=1,
        le=3650,
        description="stale-case-reminder: a case whose ledger has not moved for this many days "
        "(no draft, or a pair short of lessons_folded) is on the reminder list.",
    )
    reminder_webhook: str | None = Field(
        default=None,
        description="stale-case-reminder: an http(s) URL that receives the reminder list as a "
        "JSON POST each morning when the list is not empty. Unset: the list is kept for the CLI, "
        "the API and the desk only.",
    )
    tracker_url: str | None = Field(
        default=None,
        description="sync-case-status: an http(s) URL of the office's case tracker; each case "
        "status that changed since the last push is POSTed to it as JSON. Unset: statuses are "
        "reconciled and kept here only.",
    )
    tracker_token: str | None = Field(
        default=None,
        description="sync-case-status: the bearer token sent to LEGAL_AI_TRACKER_URL "
        "(`Authorization: Bearer ...`).",
    )
    standing_eval: Path | None = Field(
        default=None,
        description="nightly-upkeep: a JSON manifest of the gold sets the standing evaluation "
        "runs (eval/standing.json names the CI gate's sets); hybrid nDCG@10 is recorded per day "
        "and a drop beyond 0.01 is reported by `legal-ai health`. Unset: no standing evaluation.",
    )
    standing_eval_office: bool = Field(
        default=True,
        description="nightly-upkeep: also run the standing evaluation on the office's own gold "
        "set, built from the chair's finals (the sentence citing a ruling or section is the "
        "query, the cited item the answer: `legal-ai eval gold from-finals`) and recorded as "
        "`office-gold`; with no final citing what the library holds it is skipped and said. "
        "false: not run.",
    )
    telemetry: bool = Field(
        default=True,
        description="Search telemetry: every search from the CLI, MCP, the HTTP API and the desk "
        "is logged in the database (search_log: query, filters, hits with ranks, latency, "
        "caller) with the chair's clicks and useful marks; it grows the eval gold set "
        "(`legal-ai telemetry export --qrels`) and never leaves the machine. false: nothing is "
        "logged.",
    )
    telemetry_retention_days: int = Field(
        default=180,
        ge=1,
        description="Days a logged search (and its marks) is kept; older ones are deleted by "
        "`legal-ai telemetry prune` and the scheduled upkeep. Export marked searches first.",
    )
    metrics_token: str | None = Field(
        default=None,
        description="The bearer token Prometheus scrapes `GET /metrics` with (search latency, "
        "queues, jobs, model calls and tokens, uploads: docs/deployment.md, Monitoring); it "
        "must differ from the chair's and every agent's token. Unset: /metrics is off (404 "
        "saying what to set).",
    )
    log_format: Literal["json", "text"] = Field(
        default="json",
        description="`legal-ai serve` and `legal-ai worker` log to stderr one JSON object per "
        "line (time, level, logger, message, the HTTP request's id; `json`), or plain lines "
        "for reading at a terminal (`text`). The request id also goes into the audit, search "
        "log and model-call rows the request writes.",
    )

    distiller: str | None = Field(
        default=None,
        description="Language model that distills style lessons from a draft/final pair: "
        "`PROVIDER:MODEL[@BASE_URL]`, PROVIDER one of anthropic | openai | gemini (`openai` is any "
        "OpenAI-compatible endpoint). Keys from ANTHROPIC_API_KEY / OPENAI_API_KEY / "
        "GEMINI_API_KEY. Unset: the learning stage waits and says so.",
    )
    curator: str | None = Field(
        default=None,
        description="Language model that reads each final against the writing brief and records "
        "3-5 tagged findings (spec as LEGAL_AI_DISTILLER). Unset: the curator waits.",
    )
    style_panel: str | None = Field(
        default=None,
        description="The two models (comma-separated specs, different families recommended) that "
        "vote on each proposed style lesson: 2/2 approve -> approved by the panel (reversible by "
        "the chair's veto); split -> the chair; 0/2 -> rejected. Unset: proposals wait for the "
        "chair.",
    )
    principle_panel: str | None = Field(
        default=None,
        description="The three models (comma-separated specs, as LEGAL_AI_DISTILLER) that "
        "extract principles from rulings and decisions (`legal-ai principles extract`). Fewer "
        "than three: extraction is refused and says what to set.",
    )
    halacha_panel_approve_score: float = Field(
        default=0.85,
        ge=0.85,
        le=1,
        validation_alias=AliasChoices(
            "HALACHA_PANEL_APPROVE_SCORE", "LEGAL_AI_HALACHA_PANEL_APPROVE_SCORE"
        ),
        description="Mean score at which a principle proposed by two of the three panel models "
        "is approved (3 votes: approved; 2 below it: the chair; 1: rejected). The database "
        "checks the panel's decisions against 0.85 (migration 0015), so it may only be raised.",
    )
    halacha_panel_max_new: int = Field(
        default=5,
        ge=0,
        le=50,
        validation_alias=AliasChoices("HALACHA_PANEL_MAX_NEW", "LEGAL_AI_HALACHA_PANEL_MAX_NEW"),
        description="At most this many NEW principles per ruling or decision over all its text "
        "versions, by score (one linked to an existing principle does not count). The database "
        "holds the value recorded on first use; `legal-ai db migrate` records it anew.",
    )
    synthesizer: str | None = Field(
        default=None,
        description="Language model (one spec, as LEGAL_AI_DISTILLER) that writes the canonical "
        "statement of a canonical principle from its occurrences' supporting quotes only "
        "(`legal-ai principles synthesize`). A statement not grounded in the quotes is abstained "
        "from; synthesis never approves. Unset: synthesis is refused and says what to set.",
    )
    voice_writer: str | None = Field(
        default=None,
        description="Language model (one spec, as LEGAL_AI_DISTILLER) that writes the deep-read "
        "voice document of a final the chair marked as exemplary, block by block, each claim "
        "pointing at a verbatim span of the final (`legal-ai voice run`). Unset: marked cases "
        "wait in the queue and `voice run` says what to set.",
    )
    enricher: str | None = Field(
        default=None,
        description="Language model (one spec, as LEGAL_AI_DISTILLER) that writes the headnote, "
        "summary and tags of each internal decision ingested (`legal-ai worker`, `legal-ai enrich "
        "run`): every summary sentence rests on a verbatim quote of the decision, and nothing is "
        "written into the decision until the chair approves it (`legal-ai enrich review`). Unset: "
        "the decisions wait in the queue and `legal-ai health` lists them.",
    )
    verifier: str | None = Field(
        default=None,
        description="Language model (one spec, as LEGAL_AI_DISTILLER) that judges, in `legal-ai "
        "draft check`, whether the passage the embedder found supports the draft's sentence "
        "citing it: supported / partly / not_supported, with the words of the passage it rests "
        "on, kept only when they are in the passage verbatim (docs/verification.md). Its word "
        "is shown as the model's, never as a problem or a status. Unset: the check is the "
        "embedder's only.",
    )
    verifier_max_calls: int = Field(
        default=30,
        ge=1,
        le=500,
        description="At most this many questions to LEGAL_AI_VERIFIER in one draft check; the "
        "citations past it say they were not asked.",
    )
    halacha_canonical_synth_drift_floor: float | None = Field(
        default=None,
        ge=0,
        le=1,
        validation_alias=AliasChoices(
            "HALACHA_CANONICAL_SYNTH_DRIFT_FLOOR", "LEGAL_AI_HALACHA_CANONICAL_SYNTH_DRIFT_FLOOR"
        ),
        description="Cosine (embedder of the index) below which a synthesized canonical "
        "statement has drifted from the source wording and is rejected (the source is kept). "
        "Unset: the embedder's measured floor (e5-local 0.93; others DESIGN's 0.80) — see "
        "learning/principles/synthesis.py DRIFT_FLOORS.",
    )
    model_timeout_s: float = Field(
        default=120.0, gt=0, le=1800, description="Seconds one language-model call may take."
    )
    model_retries: int = Field(
        default=2,
        ge=0,
        le=6,
        description="Retries of a language-model call answered 429 or 5xx or timed out, with "
        "exponential backoff (an answer that fails its schema is retried once more, then "
        "recorded as a failure).",
    )
    job_lease_s: int = Field(
        default=900,
        ge=10,
        description="Seconds a worker holds a job; a job whose worker died is claimable again "
        "after its lease ends.",
    )
    model_budgets: str = Field(
        default="",
        description="Daily ceilings on what the language models spend, in tokens (in + out, as "
        "each provider reports them) per role: comma-separated `ROLE=TOKENS`, ROLE one of "
        "distiller, style_panel, curator, principle_panel, synthesizer, voice_writer, enricher, "
        "verifier (e.g. `distiller=200000,style_panel=400000`; 0 pauses a role). The day runs from "
        "midnight to midnight in LEGAL_AI_SCHEDULE_TIMEZONE. Before each call a stage reads its "
        "role's spending today (model_calls); once it reached the budget the stage stops before "
        "its next call and its job waits, deferred (not failed), until the next day or until "
        "the budget is raised (docs/models.md: Budgets). A role left out, or the setting empty "
        "(the default): no ceiling.",
    )

    tesseract: str = Field(
        default="tesseract",
        description="The Tesseract OCR program (a name on PATH or a path) that reads scanned, "
        "image-only PDFs in the background (`legal-ai worker`, `legal-ai ocr run`); Debian's "
        "tesseract-ocr and tesseract-ocr-heb, installed by `make install`. Missing: scanned "
        "files wait in the queue with what to install.",
    )
    ocr_languages: str = Field(
        default="heb",
        pattern=r"^[A-Za-z_]+(\+[A-Za-z_]+)*$",
        description="Tesseract's language models, joined by + (e.g. heb+eng); each must be "
        "installed (`tesseract --list-langs`).",
    )
    ocr_min_confidence: float = Field(
        default=60.0,
        ge=0,
        le=100,
        description="A scanned page whose mean word confidence (Tesseract's, 0-100) is below "
        "this is flagged as low-confidence in the item's record and in `legal-ai health`.",
    )
    ocr_dpi: int = Field(
        default=300, ge=72, le=600, description="Resolution pages are rendered at for OCR."
    )
    ocr_page_seconds: float = Field(
        default=120.0,
        gt=0,
        description="Wall-clock seconds rendering or reading one scanned page may take (each "
        "runs in its own process, also limited in memory); a page over it is left empty and "
        "flagged.",
    )
    ocr_max_page_megapixels: float = Field(
        default=150.0,
        gt=0,
        description="A scanned page larger than this many million pixels at LEGAL_AI_OCR_DPI is "
        "not rendered (a page of 1000 x 1000 inches asks for gigabytes): it is left empty and "
        "flagged. A4 at 300 dpi is 8.7; A0 is 139.",
    )
    max_text_chars: int = Field(
        default=20_000_000,
        ge=1000,
        description="A file whose text comes to more characters than this is refused with one "
        "line (a 500-page decision is about a million); a Word file is stopped while it is read, "
        "before it gets there (docs/ingest.md).",
    )
    max_pages: int = Field(
        default=5000,
        ge=1,
        description="A PDF with more pages than this is refused (its text), or not read by OCR "
        "(its scan).",
    )
    read_seconds: float = Field(
        default=180.0,
        gt=0,
        le=3600,
        description="Wall-clock seconds one file's reading (PDF, DOCX, TXT, in a child process "
        "of its own) may take: past it the child is killed and the file refused.",
    )
    read_memory_mb: int = Field(
        default=2048,
        ge=256,
        description="Address space (MB) of the child process one file is read in: an allocation "
        "past it fails, and the file is refused as taking too much memory to read.",
    )
    backup_dir: Path | None = Field(
        default=None,
        description="The folder the database's backups are kept in: the scheduled job "
        "`nightly-backup` writes one there each night (legal-ai-<UTC time>.backup and its "
        "manifest) and proves it by restoring it into a scratch database; `legal-ai doctor` "
        "reads the newest archive's age there. It must exist and be writable. Unset: no "
        "scheduled backup (the job is skipped) and the doctor warns that no backup is known.",
    )
    backup_keep: int = Field(
        default=7,
        ge=1,
        le=3650,
        description="nightly-backup: how many of its own archives to keep in LEGAL_AI_BACKUP_DIR "
        "(the newest; older ones are deleted with their manifests only after a new backup was "
        "proven). Other files in the folder are never deleted.",
    )
    backup_max_age_hours: float = Field(
        default=26.0, gt=0, description="`legal-ai doctor` warns when the newest backup is older."
    )
    disk_warn_gb: float = Field(
        default=5.0,
        ge=0,
        description="`legal-ai doctor`: free space under LEGAL_AI_HOME below this many GB warns; "
        "below LEGAL_AI_DISK_ERROR_GB it is an error.",
    )
    disk_error_gb: float = Field(default=1.0, ge=0, description="See LEGAL_AI_DISK_WARN_GB.")

    @field_validator("trusted_proxies")
    @classmethod
    def _proxy_addresses(cls, value: str) -> str:
        return proxy_addresses(value)

    @field_validator("reranker")
    @classmethod
    def _reranker_spec(cls, value: str | None) -> str | None:
        return reranker_spec(value)

    @field_validator("analyzer")
    @classmethod
    def _known_analyzer(cls, value: str) -> str:
        return known_analyzer(value)

    @field_validator("model_budgets")
    @classmethod
    def _model_budgets(cls, value: str) -> str:
        return model_budgets(value)

    @property
    def budgets(self) -> dict[str, int]:
        """LEGAL_AI_MODEL_BUDGETS as {role: tokens per day}; a role left out has no ceiling."""
        return budgets_of(self.model_budgets)

    @property
    def pgdata(self) -> Path:
        return self.home / "pgdata"

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> Settings:
        """The settings `environ` gives (the process's environment, or an environment file's
        variables: `legal-ai doctor --env-file`) and nothing else, by the rules `Settings()`
        reads the process's with: the prefix, the unprefixed names, empty meaning unset. A
        malformed value raises pydantic's ValidationError (config_env.read says it in one
        line)."""
        given = _ENVIRON.set(dict(environ))
        try:
            return cls()
        finally:
            _ENVIRON.reset(given)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """pydantic-settings' sources, the environment's from_environ's mapping when given."""
        environ = _ENVIRON.get()
        if environ is not None:
            env_settings = _Given(settings_cls, environ)
        return init_settings, env_settings, dotenv_settings, file_secret_settings


# The environment Settings.from_environ reads (None: the process's).
_ENVIRON: ContextVar[dict[str, str] | None] = ContextVar("legal_ai_environ", default=None)


def env_names() -> dict[str, tuple[str, ...]]:
    """Each setting's field name -> the environment variables it is read from."""
    names = {}
    for name, field in Settings.model_fields.items():
        alias = field.validation_alias
        given = alias.choices if isinstance(alias, AliasChoices) else ()
        names[name] = tuple(str(c) for c in given) or (f"LEGAL_AI_{name.upper()}",)
    return names


class _Given(EnvSettingsSource):
    """pydantic-settings' own reading of environment variables, from a given mapping instead of
    os.environ."""

    def __init__(self, settings_cls: type[BaseSettings], environ: Mapping[str, str]) -> None:
        self._given = dict(environ)
        super().__init__(settings_cls)

    def _load_env_vars(self) -> Mapping[str, str | None]:
        return parse_env_vars(
            self._given, self.case_sensitive, self.env_ignore_empty, self.env_parse_none_str
        )

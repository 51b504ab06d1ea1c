-- 0012_learning_engine: the model-driven half of the learning loop (issue 11).
-- * model_calls: every call to a language model (append-only) — the provenance of every model
--   decision: stage, provider, model, prompt hash, tokens, latency, outcome, error.
-- * jobs: the work queue (drained with FOR UPDATE SKIP LOCKED; a lease makes a crashed job
--   claimable again; `key` makes the same final enqueue one job only).
-- * lessons carry their evidence (the block and the verbatim spans of our draft and her final),
--   the models of the panel that decided them, how many later proposals corroborated them, and
--   why a proposal was routed to the chair as substance.

CREATE TABLE jobs (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind         text NOT NULL CHECK (kind IN ('learning')),
    case_number  text,
    key          text NOT NULL UNIQUE,
    status       text NOT NULL DEFAULT 'queued'
                 CHECK (status IN ('queued', 'running', 'waiting', 'done', 'failed')),
    attempts     integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    max_attempts integer NOT NULL DEFAULT 3 CHECK (max_attempts > 0),
    run_after    timestamptz NOT NULL DEFAULT now(),
    lease_until  timestamptz,
    worker       text,
    waiting_for  text,          -- what to configure before it can run (status waiting)
    result       jsonb,
    error        text,
    created_at   timestamptz NOT NULL DEFAULT now(),
    started_at   timestamptz,
    finished_at  timestamptz,
    CONSTRAINT running_has_lease CHECK (status <> 'running' OR lease_until IS NOT NULL),
    CONSTRAINT finished_has_time CHECK (status NOT IN ('done', 'failed') OR finished_at IS NOT NULL)
);
CREATE INDEX jobs_ready_idx ON jobs (run_after) WHERE status IN ('queued', 'running');
CREATE INDEX jobs_case_idx ON jobs (case_number);

CREATE TABLE model_calls (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at          timestamptz NOT NULL DEFAULT now(),
    stage       text NOT NULL CHECK (btrim(stage) <> ''),
    provider    text NOT NULL CHECK (provider IN ('anthropic', 'openai', 'gemini')),
    model       text NOT NULL CHECK (btrim(model) <> ''),
    base_url    text,
    case_number text,
    job_id      bigint REFERENCES jobs (id),
    prompt_hash text NOT NULL,
    attempt     integer NOT NULL DEFAULT 1 CHECK (attempt > 0),
    tokens_in   integer,
    tokens_out  integer,
    latency_ms  integer NOT NULL CHECK (latency_ms >= 0),
    outcome     text NOT NULL
                CHECK (outcome IN ('ok', 'invalid', 'error', 'timeout', 'rate_limited', 'refused')),
    error       text
);
CREATE INDEX model_calls_job_idx ON model_calls (job_id);
CREATE INDEX model_calls_stage_idx ON model_calls (stage, at);

CREATE TRIGGER model_calls_append_only BEFORE UPDATE OR DELETE ON model_calls
    FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER model_calls_no_truncate BEFORE TRUNCATE ON model_calls
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();

ALTER TABLE decision_lessons ADD COLUMN evidence jsonb;
ALTER TABLE decision_lessons ADD COLUMN panel_models text;
ALTER TABLE decision_lessons ADD COLUMN corroboration integer NOT NULL DEFAULT 0;
ALTER TABLE decision_lessons ADD COLUMN routed_reason text;
ALTER TABLE decision_lessons ADD COLUMN job_id bigint REFERENCES jobs (id);

-- The engine runs as an agent: it may record the panel's models and corroborate a lesson (the
-- column list of apply_role_grants, 0010), write calls and jobs, and not rewrite the calls.
SELECT apply_role_grants();

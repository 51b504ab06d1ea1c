-- 0021_scheduled_jobs: the scheduler's state (issue 15 item 1; legal_ai/schedule.py, which
-- defines the jobs, and legal_ai/scheduled_jobs.py, which does their work).
--
-- * schedules: one row per scheduled job: its cron expression and time zone, when it is next
--   due, and how its last run went. A process runs a job only while it holds the job's row
--   (SELECT ... FOR UPDATE SKIP LOCKED, held for the run), so two workers never run one job at
--   once; a process that dies mid-run releases the row with its connection and the job is due
--   again. `failures` counts the failed runs in a row (a failed job is retried with a backoff,
--   never later than its next scheduled time).
-- * schedule_runs: every run, append-only: the slot it ran for (NULL: on demand), how many
--   later slots that one run caught up (a worker down three days runs a daily job once, with
--   missed = 3), start, end, outcome (ok | failed | skipped), what it did (result) and the
--   error.
-- * case_status: each case's status as last reconciled with its ledger (sync-case-status), and
--   the status last pushed to the tracker: a row whose pushed_status differs is a change not
--   yet pushed.
-- * eval_history: the standing evaluation's hybrid nDCG@10 per gold set and day (Asia/Jerusalem)
--   (nightly-upkeep); a drop beyond the tolerance is reported by `legal-ai health`.

CREATE TABLE schedules (
    name             text PRIMARY KEY CHECK (name ~ '^[a-z][a-z0-9-]*$'),
    cron             text NOT NULL CHECK (btrim(cron) <> ''),
    timezone         text NOT NULL CHECK (btrim(timezone) <> ''),
    next_run_at      timestamptz NOT NULL,
    last_started_at  timestamptz,
    last_finished_at timestamptz,
    last_outcome     text CHECK (last_outcome IN ('ok', 'failed', 'skipped')),
    last_result      jsonb,
    last_error       text,
    failures         integer NOT NULL DEFAULT 0 CHECK (failures >= 0),
    updated_at       timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE schedule_runs (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name          text NOT NULL,
    trigger       text NOT NULL CHECK (trigger IN ('schedule', 'manual')),
    scheduled_for timestamptz,
    missed        integer NOT NULL DEFAULT 0 CHECK (missed >= 0),
    started_at    timestamptz NOT NULL,
    finished_at   timestamptz NOT NULL,
    outcome       text NOT NULL CHECK (outcome IN ('ok', 'failed', 'skipped')),
    result        jsonb,
    error         text,
    worker        text,
    requested_by  text NOT NULL,
    CONSTRAINT schedule_run_ends_after_start CHECK (finished_at >= started_at),
    CONSTRAINT schedule_run_slot CHECK ((trigger = 'schedule') = (scheduled_for IS NOT NULL)),
    CONSTRAINT schedule_run_error CHECK ((outcome = 'failed') = (error IS NOT NULL))
);
CREATE INDEX schedule_runs_name_idx ON schedule_runs (name, id DESC);

CREATE TRIGGER schedule_runs_append_only BEFORE UPDATE OR DELETE ON schedule_runs
    FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER schedule_runs_no_truncate BEFORE TRUNCATE ON schedule_runs
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();

CREATE TABLE case_status (
    case_number   text PRIMARY KEY REFERENCES cases (case_number) ON UPDATE CASCADE
                  ON DELETE CASCADE,
    status        text NOT NULL CHECK (status IN ('open', 'draft_done', 'final_received',
                                                  'analyzed', 'lessons_folded')),
    previous      text,
    changed_at    timestamptz NOT NULL,
    pushed_status text,
    pushed_at     timestamptz
);
CREATE INDEX case_status_unpushed_idx ON case_status (case_number)
    WHERE pushed_status IS DISTINCT FROM status;

CREATE TABLE eval_history (
    dataset       text NOT NULL CHECK (btrim(dataset) <> ''),
    day           date NOT NULL,
    fingerprint   text NOT NULL,
    ndcg_at_10    double precision NOT NULL CHECK (ndcg_at_10 BETWEEN 0 AND 1),
    recall_at_100 double precision CHECK (recall_at_100 BETWEEN 0 AND 1),
    n_queries     integer NOT NULL CHECK (n_queries >= 0),
    n_docs        integer NOT NULL CHECK (n_docs >= 0),
    config        jsonb NOT NULL DEFAULT '{}',
    recorded_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (dataset, day)
);

SELECT apply_role_grants();

-- 0055: what an agent inserts carries only what an agent may say; the rest is the database's.
--
-- The agent's role (and an agent's own login) may INSERT into six tables (0033's list:
-- chair_feedback, decision_lessons, drafts, jobs, learning_audit, search_log). Their gates forced
-- some columns and left others to the statement, so plain SQL by the agent's login could:
--
-- * pick a row's id (`OVERRIDING SYSTEM VALUE`) ahead of the sequence, so that the next insert
--   of the chair, the worker or another agent fails on the primary key (a lesson she writes, a
--   distillation, a draft, her final's job);
-- * propose a lesson that looks like the system's and rests on "her own words": `source`
--   'distillation', `proposed_by` 'system:…' or another agent's name (using up that agent's
--   proposals), `evidence` with feedback "she wrote", `routed_reason` ("why this is with you"),
--   a pair of another case, a corroboration count, a back-dated `created_at`;
-- * back-date its feedback (the weekly job reads feedback by when it was written);
-- * queue its job ahead of every other (`run_after` '-infinity'), retried for ever
--   (`max_attempts`), or already leased to a worker.
--
-- Now: a request role's row takes the id its sequence drew (`row_id_by_database`, first of each
-- table's triggers); an agent's lesson is a curator's finding in an `agent:NAME`, on its own
-- case's pair, with no evidence, routing, review reason, job, corroboration or date of its; a
-- request role's feedback is dated when written; an agent's job is queued now, with the
-- default attempts and no lease. The app's own inserts already write exactly that.

-- A row of a request role (chair, worker, agent) takes the id the sequence drew for it: the
-- default's nextval() is the session's currval() when the trigger runs; a statement that named
-- the id (OVERRIDING SYSTEM VALUE) drew none, or another.
CREATE FUNCTION row_id_by_database() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    drawn bigint;
BEGIN
    IF NOT acting_as_request() THEN
        RETURN NEW;  -- the operator's own login (a restore writes the ids it saved)
    END IF;
    BEGIN
        drawn := pg_catalog.currval(pg_catalog.pg_get_serial_sequence(
            pg_catalog.format('%I.%I', TG_TABLE_SCHEMA, TG_TABLE_NAME), 'id'));
    EXCEPTION WHEN object_not_in_prerequisite_state THEN
        drawn := NULL;  -- the sequence drew nothing in this session
    END;
    IF NEW.id IS DISTINCT FROM drawn THEN
        RAISE EXCEPTION 'a row''s id is the database''s to draw, not the statement''s (running as %)',
            current_user USING ERRCODE = 'check_violation', CONSTRAINT = 'row_id_by_database';
    END IF;
    RETURN NEW;
END $$;

-- Named to fire first of each table's BEFORE triggers (they fire in the order of their names).
CREATE TRIGGER a_row_id_by_database BEFORE INSERT ON chair_feedback
    FOR EACH ROW EXECUTE FUNCTION row_id_by_database();
CREATE TRIGGER a_row_id_by_database BEFORE INSERT ON decision_lessons
    FOR EACH ROW EXECUTE FUNCTION row_id_by_database();
CREATE TRIGGER a_row_id_by_database BEFORE INSERT ON drafts
    FOR EACH ROW EXECUTE FUNCTION row_id_by_database();
CREATE TRIGGER a_row_id_by_database BEFORE INSERT ON jobs
    FOR EACH ROW EXECUTE FUNCTION row_id_by_database();
CREATE TRIGGER a_row_id_by_database BEFORE INSERT ON learning_audit
    FOR EACH ROW EXECUTE FUNCTION row_id_by_database();
CREATE TRIGGER a_row_id_by_database BEFORE INSERT ON search_log
    FOR EACH ROW EXECUTE FUNCTION row_id_by_database();

-- An agent's lesson: a curator's finding, in an agent's name (`agent:NAME`: the database cannot
-- tell one agent's login from another's under the agent's role), on its own case's pair; what
-- the system and the chair record about a lesson (its evidence, why it was routed to her, the
-- job that distilled it, its corroboration, when it was said) is not the agent's to write.
CREATE FUNCTION lesson_agent_gate() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NOT acting_as_agent() THEN
        RETURN NEW;
    END IF;
    IF coalesce(NEW.proposed_by, '') NOT LIKE 'agent:_%' THEN
        RAISE EXCEPTION 'an agent''s lesson carries the agent''s name (agent:NAME), not %',
            coalesce(NEW.proposed_by, 'none')
            USING ERRCODE = 'check_violation', CONSTRAINT = 'lesson_agent_named';
    END IF;
    IF NEW.source IS DISTINCT FROM 'curator' THEN
        RAISE EXCEPTION 'an agent proposes a lesson as the curator''s finding, not as %',
            NEW.source USING ERRCODE = 'check_violation', CONSTRAINT = 'lesson_agent_curator';
    END IF;
    IF NEW.pair_id IS NOT NULL AND NOT EXISTS (
           SELECT 1 FROM draft_final_pairs p
           WHERE p.id = NEW.pair_id AND p.case_number IS NOT DISTINCT FROM NEW.case_number) THEN
        RAISE EXCEPTION 'a lesson rests on its own case''s pair (case %)',
            coalesce(NEW.case_number, 'none')
            USING ERRCODE = 'check_violation', CONSTRAINT = 'lesson_pair_of_its_case';
    END IF;
    NEW.evidence := NULL;
    NEW.routed_reason := NULL;
    NEW.review_reason := NULL;  -- the audit page shows it as a decision's reason
    NEW.needs_chair := false;
    NEW.job_id := NULL;
    NEW.corroboration := 0;
    NEW.folded_into := NULL;
    NEW.reviewed_at := NULL;
    NEW.created_at := now();
    RETURN NEW;
END $$;
CREATE TRIGGER lesson_agent_gate BEFORE INSERT ON decision_lessons
    FOR EACH ROW EXECUTE FUNCTION lesson_agent_gate();

-- Feedback of a request role is dated when it is written.
CREATE FUNCTION feedback_dated() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF acting_as_request() THEN
        NEW.created_at := now();
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER feedback_dated BEFORE INSERT ON chair_feedback
    FOR EACH ROW EXECUTE FUNCTION feedback_dated();

-- An agent's job is queued now, with the default attempts, leased to no worker.
CREATE FUNCTION jobs_agent_fields() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF acting_as_agent() THEN
        NEW.run_after := now();
        NEW.created_at := now();
        NEW.max_attempts := 3;
        NEW.lease_until := NULL;
        NEW.worker := NULL;
        NEW.waiting_for := NULL;
        NEW.error := NULL;
        NEW.started_at := NULL;
        NEW.finished_at := NULL;
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER jobs_agent_fields BEFORE INSERT ON jobs
    FOR EACH ROW EXECUTE FUNCTION jobs_agent_fields();

SELECT pin_search_paths();

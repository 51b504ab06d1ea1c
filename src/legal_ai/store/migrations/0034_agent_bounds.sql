-- 0034_agent_bounds: her final's labels are hers, and bounds on what an agent may add
-- (issue 31 items 6 and 7).
--
-- * cases.labels_source: whose the case's appeal type, outcome and practice area are once its
--   final has arrived: `final` (given with the final, or the draft's confirmed with it),
--   `draft` (the draft's, taken without confirmation: shown to the chair as such); NULL before
--   the final (the drafts' labels). An agent (its role or its own login) never sets it, and
--   never changes the labels of a case whose final has arrived; a request role other than the
--   chair's never changes labels that are the final's.
-- * cases.created_role / created_by: the role that inserted the case (forced from the session)
--   and who the service says it was (an agent's name).
-- * Ceilings an agent's SQL cannot pass (the configured, lower caps are the service's, in
--   LEGAL_AI_MAX_OPEN_PROPOSALS / LEGAL_AI_MAX_NEW_CASES, answered 429): at most 200 open
--   (proposed) lessons per proposer name and 1000 per proposing role or login; at most 200 new
--   cases per role or login in an hour. Refused with SQLSTATE 53400
--   (configuration_limit_exceeded), nothing written.
-- * An index on model_calls.request_id: a caller's X-Request-ID is looked up before it is taken.

ALTER TABLE cases
    ADD COLUMN labels_source text CHECK (labels_source IN ('final', 'draft')),
    ADD COLUMN created_role  text,
    ADD COLUMN created_by    text;

CREATE INDEX cases_created_role_idx ON cases (created_role, created_at)
    WHERE created_role IS NOT NULL;
CREATE INDEX decision_lessons_open_proposer_idx ON decision_lessons (proposed_by)
    WHERE review_status = 'proposed';
CREATE INDEX decision_lessons_open_role_idx ON decision_lessons (proposed_role)
    WHERE review_status = 'proposed';

CREATE FUNCTION cases_agent_gate() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    agent boolean := acting_as_agent();
    recent integer;
BEGIN
    IF TG_OP = 'INSERT' THEN
        NEW.created_role := current_user;
        IF agent THEN
            NEW.labels_source := NULL;
            NEW.created_at := now();
            NEW.created_by := coalesce(NEW.created_by, current_user);
            IF NOT EXISTS (SELECT 1 FROM cases c WHERE c.case_number = NEW.case_number) THEN
                PERFORM pg_catalog.pg_advisory_xact_lock(
                    pg_catalog.hashtext('legal_ai:new-cases:' || current_user));
                SELECT count(*) INTO recent FROM cases c
                 WHERE c.created_role = current_user
                   AND c.created_at > now() - interval '1 hour';
                IF recent >= 200 THEN
                    RAISE EXCEPTION 'new cases cap: % created % cases in the last hour (the ceiling is 200)',
                        current_user, recent USING ERRCODE = 'configuration_limit_exceeded';
                END IF;
            END IF;
        END IF;
        RETURN NEW;
    END IF;
    IF (NEW.created_role, NEW.created_by, NEW.created_at)
       IS DISTINCT FROM (OLD.created_role, OLD.created_by, OLD.created_at) AND agent THEN
        RAISE EXCEPTION 'case %: who created it and when is kept', OLD.case_number
            USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.created_role IS DISTINCT FROM OLD.created_role THEN
        RAISE EXCEPTION 'case %: the role that created it is kept', OLD.case_number
            USING ERRCODE = 'check_violation';
    END IF;
    IF agent AND NEW.labels_source IS DISTINCT FROM OLD.labels_source THEN
        RAISE EXCEPTION 'case %: whose labels these are is not an agent''s to say', OLD.case_number
            USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.labels_source IS NOT NULL
       AND (NEW.appeal_type, NEW.outcome, NEW.practice_area)
           IS DISTINCT FROM (OLD.appeal_type, OLD.outcome, OLD.practice_area)
       AND (agent OR (OLD.labels_source = 'final' AND acting_as_request() AND NOT acting_as_chair()))
    THEN
        RAISE EXCEPTION 'case %: the labels of its final are the chair''s (appeal type, outcome, practice area)',
            OLD.case_number USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER cases_agent_gate BEFORE INSERT OR UPDATE ON cases
    FOR EACH ROW EXECUTE FUNCTION cases_agent_gate();

CREATE FUNCTION proposal_cap() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    mine integer;
    role_open integer;
BEGIN
    IF NOT acting_as_agent() OR NEW.review_status IS DISTINCT FROM 'proposed' THEN
        RETURN NEW;
    END IF;
    IF NEW.dedupe_key IS NOT NULL
       AND EXISTS (SELECT 1 FROM decision_lessons l WHERE l.dedupe_key = NEW.dedupe_key) THEN
        RETURN NEW;  -- the same proposal again: the insert adds nothing
    END IF;
    PERFORM pg_catalog.pg_advisory_xact_lock(
        pg_catalog.hashtext('legal_ai:proposals:' || current_user));
    SELECT count(*) INTO role_open FROM decision_lessons l
     WHERE l.review_status = 'proposed' AND l.proposed_role = current_user;
    IF role_open >= 1000 THEN
        RAISE EXCEPTION 'open proposals cap: % has % proposals waiting for the chair (the ceiling is 1000)',
            current_user, role_open USING ERRCODE = 'configuration_limit_exceeded';
    END IF;
    SELECT count(*) INTO mine FROM decision_lessons l
     WHERE l.review_status = 'proposed' AND l.proposed_by IS NOT DISTINCT FROM NEW.proposed_by;
    IF mine >= 200 THEN
        RAISE EXCEPTION 'open proposals cap: % has % proposals waiting for the chair (the ceiling is 200)',
            coalesce(NEW.proposed_by, current_user), mine
            USING ERRCODE = 'configuration_limit_exceeded';
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER decision_lessons_proposal_cap BEFORE INSERT ON decision_lessons
    FOR EACH ROW EXECUTE FUNCTION proposal_cap();

DO $pin$
BEGIN
    EXECUTE format('ALTER FUNCTION cases_agent_gate() SET search_path = pg_catalog, %I, pg_temp',
                   current_schema());
    EXECUTE format('ALTER FUNCTION proposal_cap() SET search_path = pg_catalog, %I, pg_temp',
                   current_schema());
END $pin$;

-- A request id is taken from a caller only when no row records it yet (web/request_ids.py):
-- the model calls' ids are looked up too (the audit's and the search log's are indexed, 0031).
CREATE INDEX model_calls_request_idx ON model_calls (request_id) WHERE request_id IS NOT NULL;

-- 0017_principle_gate_and_queue: the chair's gate for canonical principles and the queue that
-- extracts principles on ingest (issue 13, items 1 and 4).
--
-- * jobs.kind gains 'principles': ingesting a ruling or a committee decision (external or
--   internal) queues one extraction job per (item, text); `legal-ai worker` and
--   `legal-ai principles run` drain it with the learning queue's leases, retries and waiting.
-- * canonical_principles gains the chair's record: reviewed_by / review_reason (her decision) and
--   statement_by (who wrote the statement now standing: the synthesizer or the chair).
-- * canonical_statement_versions: every statement a canonical principle has had (version 1 is the
--   source wording), written by a trigger, so an edit by SQL is recorded too; append-only. The
--   chair's "revert" restores an earlier version as a new one.
-- * canonical_gate, now: only the chair's role approves or rejects a canonical principle, and only
--   her role changes its statement -- except the synthesizer's single move
--   pending_synthesis -> pending_review. An approved canonical's statement changes only by her.
-- * canonical decisions and statement changes are audited in learning_audit (action
--   'update_canonical' / 'edit_canonical_statement', details.canonical_id).

ALTER TABLE jobs DROP CONSTRAINT jobs_kind_check;
ALTER TABLE jobs ADD CONSTRAINT jobs_kind_check CHECK (kind IN ('learning', 'principles'));
CREATE INDEX jobs_kind_idx ON jobs (kind, status);

ALTER TABLE canonical_principles
    ADD COLUMN reviewed_by   text,
    ADD COLUMN reviewed_at   timestamptz,
    ADD COLUMN review_reason text,
    ADD COLUMN statement_by  text;

CREATE TABLE canonical_statement_versions (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    canonical_id bigint NOT NULL REFERENCES canonical_principles (id),
    version      integer NOT NULL CHECK (version >= 1),
    statement    text NOT NULL CHECK (btrim(statement) <> ''),
    author       text NOT NULL,
    db_role      text NOT NULL DEFAULT current_user,
    reason       text,
    at           timestamptz NOT NULL DEFAULT now(),
    UNIQUE (canonical_id, version)
);
CREATE TRIGGER canonical_statement_versions_append_only BEFORE UPDATE OR DELETE
    ON canonical_statement_versions FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER canonical_statement_versions_no_truncate BEFORE TRUNCATE
    ON canonical_statement_versions FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();

-- Existing canonicals: version 1 (the source wording), and version 2 when a synthesis stands.
INSERT INTO canonical_statement_versions (canonical_id, version, statement, author, reason)
SELECT id, 1, rule_text, 'source', 'the wording of the first occurrence'
FROM canonical_principles;
INSERT INTO canonical_statement_versions (canonical_id, version, statement, author, reason)
SELECT id, 2, canonical_statement, 'canonical-synthesizer', 'synthesis'
FROM canonical_principles WHERE canonical_statement IS NOT NULL;

CREATE OR REPLACE FUNCTION canonical_gate() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    -- Where the roles do not exist (acting_as_chair() is NULL) the row's own claim decides, as
    -- for principles; where they do, only the chair's role passes.
    decider boolean := coalesce(acting_as_chair(), NEW.reviewed_by IS NOT DISTINCT FROM 'chair');
    editor boolean := coalesce(acting_as_chair(), NEW.statement_by IS NOT DISTINCT FROM 'chair');
    synthesis boolean;
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.source_kind IS DISTINCT FROM OLD.source_kind THEN
        RAISE EXCEPTION 'a canonical principle stays in its corpus' USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.status IN ('approved', 'rejected')
       AND (TG_OP = 'INSERT' OR NEW.status IS DISTINCT FROM OLD.status)
       AND NOT decider THEN
        RAISE EXCEPTION 'a canonical principle is substance: only the chair approves or rejects it '
            '(running as %)', current_user USING ERRCODE = 'check_violation';
    END IF;
    IF TG_OP = 'UPDATE' THEN
        synthesis := OLD.status = 'pending_synthesis' AND NEW.status = 'pending_review';
        IF NOT editor AND NOT synthesis
           AND (NEW.canonical_statement, NEW.rule_text)
               IS DISTINCT FROM (OLD.canonical_statement, OLD.rule_text) THEN
            RAISE EXCEPTION 'only the chair edits the statement of canonical principle % (the '
                'synthesizer writes it once, moving it to her review)', OLD.id
                USING ERRCODE = 'check_violation';
        END IF;
        IF NEW.status IS DISTINCT FROM OLD.status THEN
            NEW.reviewed_at := CASE WHEN NEW.status IN ('approved', 'rejected') THEN now() END;
        END IF;
        NEW.updated_at := now();
    END IF;
    RETURN NEW;
END $$;

CREATE FUNCTION canonical_record() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    next_version integer;
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO canonical_statement_versions (canonical_id, version, statement, author, reason)
        VALUES (NEW.id, 1, NEW.rule_text, 'source', 'the wording of the first occurrence');
        RETURN NULL;
    END IF;
    IF coalesce(NEW.canonical_statement, NEW.rule_text)
       IS DISTINCT FROM coalesce(OLD.canonical_statement, OLD.rule_text) THEN
        SELECT coalesce(max(version), 0) + 1 INTO next_version
        FROM canonical_statement_versions WHERE canonical_id = NEW.id;
        INSERT INTO canonical_statement_versions (canonical_id, version, statement, author, reason)
        VALUES (NEW.id, next_version, coalesce(NEW.canonical_statement, NEW.rule_text),
                coalesce(NEW.statement_by, current_user), NEW.review_reason);
        INSERT INTO learning_audit (actor, action, from_status, to_status, reason, details)
        VALUES (coalesce(NEW.statement_by, current_user), 'edit_canonical_statement', OLD.status,
                NEW.status, NEW.review_reason,
                jsonb_build_object('canonical_id', NEW.id, 'version', next_version,
                                   'source_kind', NEW.source_kind));
    END IF;
    IF NEW.status IS DISTINCT FROM OLD.status THEN
        INSERT INTO learning_audit (actor, action, from_status, to_status, reason, details)
        VALUES (coalesce(CASE WHEN NEW.status IN ('approved', 'rejected') THEN NEW.reviewed_by END,
                         NEW.statement_by, current_user),
                'update_canonical', OLD.status, NEW.status, NEW.review_reason,
                jsonb_build_object('canonical_id', NEW.id, 'source_kind', NEW.source_kind));
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER canonical_principles_record AFTER INSERT OR UPDATE ON canonical_principles
    FOR EACH ROW EXECUTE FUNCTION canonical_record();

-- principle_gate, as in 0015, and: a decided principle goes back to 'proposed' (the chair's
-- queue) only by the chair's role (0015 let any writer that did not claim to be the panel do it,
-- which took an approved principle out of search without her).
CREATE OR REPLACE FUNCTION principle_gate() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    before text := CASE WHEN TG_OP = 'UPDATE' THEN OLD.review_status END;
    chair boolean := acting_as_chair();
    outcome text;
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.review_status <> 'proposed'
       AND (NEW.rule_text, NEW.supporting_quote, NEW.case_law_id)
           IS DISTINCT FROM (OLD.rule_text, OLD.supporting_quote, OLD.case_law_id) THEN
        RAISE EXCEPTION 'principle % is %: its rule, quote and source are frozen',
            OLD.id, OLD.review_status USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.reviewed_by IS NOT DISTINCT FROM 'panel'
       AND (TG_OP = 'INSERT' OR NEW.review_status IS DISTINCT FROM OLD.review_status
            OR (NEW.votes, NEW.score) IS DISTINCT FROM (OLD.votes, OLD.score)) THEN
        outcome := principle_panel_outcome(NEW.votes, NEW.score);
        IF outcome IS NULL OR (NEW.votes = 2 AND NEW.score IS NULL) THEN
            RAISE EXCEPTION 'a panel decision records its votes and score' USING ERRCODE = 'check_violation';
        END IF;
        IF NEW.review_status IS DISTINCT FROM outcome THEN
            RAISE EXCEPTION 'the panel''s rule gives % for % votes and score %, not %', outcome,
                NEW.votes, NEW.score, NEW.review_status USING ERRCODE = 'check_violation';
        END IF;
        IF TG_OP = 'UPDATE' AND before <> 'proposed' THEN
            RAISE EXCEPTION 'principle % is %: the panel does not decide it again', OLD.id, before
                USING ERRCODE = 'check_violation';
        END IF;
        NEW.reviewed_at := CASE WHEN NEW.review_status = 'proposed' THEN NULL ELSE now() END;
        RETURN NEW;
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.review_status IS NOT DISTINCT FROM OLD.review_status THEN
        RETURN NEW;
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.review_status = 'proposed' AND chair IS FALSE THEN
        RAISE EXCEPTION 'principle % is %: only the chair reopens it for review', OLD.id, before
            USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.review_status <> 'proposed' THEN
        IF NEW.reviewed_by IS DISTINCT FROM 'chair' OR chair IS FALSE THEN
            RAISE EXCEPTION 'a principle is substance: only the chair approves, rejects or vetoes '
                'it (not %, running as %)', coalesce(NEW.reviewed_by, 'an unnamed writer'),
                current_user USING ERRCODE = 'check_violation';
        END IF;
        IF NEW.review_status = 'vetoed' AND before IS DISTINCT FROM 'approved' THEN
            RAISE EXCEPTION 'only an approved principle is vetoed' USING ERRCODE = 'check_violation';
        END IF;
    END IF;
    NEW.reviewed_at := CASE WHEN NEW.review_status = 'proposed' THEN NULL ELSE now() END;
    RETURN NEW;
END $$;

SELECT apply_role_grants();

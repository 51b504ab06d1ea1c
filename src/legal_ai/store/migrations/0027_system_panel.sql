-- 0027_system_panel: only the chair decides knowledge, and the panel is the system itself
-- (issue 19, items 1-5).
--
-- * A third role, `legal_ai_worker`: what the model stages of `legal-ai worker` (and the
--   operator's own `learning run` / `principles extract` / `principles synthesize`) run as. No
--   HTTP or MCP request ever assumes it (App.acting_as refuses it for a chair's or an agent's
--   request); an agent's own login is not a member of it.
-- * A panel decision rests on verdict rows, each tied to the `model_calls` row of the call the
--   system made (outcome ok, the panel's stage, written by the worker's role, the verdict's
--   model, in the item's own job when it has one): `panel_verdicts.model_call_id` for style
--   lessons, `principle_votes` for principles.
--   The database counts the votes and the score from those rows; the row's own `votes`,
--   `score`, `models` and `panel_models` are computed, never taken from the writer.
-- * The panel votes only on style lessons the system distilled (`source = distillation`,
--   proposed by the worker's role: `decision_lessons.proposed_role`, forced from the session);
--   curator findings and whatever an agent proposes wait for the chair.
-- * A principle the panel approved is searchable, marked as the panel's; what the writer reads
--   (canonical statements) takes it only once the chair confirms it (`confirmed_by`).
-- * Gates cannot be fooled: every function of the schema pins its search_path (pg_catalog
--   first, pg_temp last: a temporary table named like a catalog is never read), catalogs are
--   named by schema, TEMP is revoked from PUBLIC on the database (granted back to nobody: the
--   owner keeps it), and a gate that cannot tell who is acting refuses (acting_as_chair() is
--   never NULL any more: where the roles do not exist no decision passes).
-- * Audit: `learning_audit.db_role` (and at) forced from the session; an agent's role never
--   inserts an audit row directly (only the database's trigger functions write them for it); the
--   names `chair` and `panel` are written only under their roles. Chair feedback records the
--   actor and role that wrote it (item 3). A decided row's review record (reviewed_by,
--   review_reason) is frozen; canonical statuses move only as the gate allows.
-- * The agent role writes only what it must: nothing on the vocabulary tables, on model calls,
--   verdicts, votes, principles, canonical principles, synthesis attempts, enrichment proposals
--   or voice documents, and no UPDATE on lessons; case_law's enrichment columns (headnote,
--   summary, tags) change only under the chair's role or the schema owner's (ingest).

DO $roles$
BEGIN
    BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'legal_ai_worker') THEN
            CREATE ROLE legal_ai_worker NOLOGIN;
        END IF;
    EXCEPTION
        WHEN duplicate_object OR unique_violation THEN
            NULL;
        WHEN insufficient_privilege THEN
            RAISE NOTICE 'legal-ai: cannot create role legal_ai_worker here; create it as a '
                         'superuser and grant it to the application login (docs/deployment.md)';
    END;
END $roles$;

-- Who is acting. False (never NULL) when the role does not exist: a gate then refuses. (Their
-- search_path is pinned with every other function, below: pin_search_paths.)
CREATE OR REPLACE FUNCTION acting_as_chair() RETURNS boolean
LANGUAGE sql STABLE AS $$
    SELECT current_user = 'legal_ai_chair'
           AND EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'legal_ai_chair')
$$;

CREATE FUNCTION acting_as_worker() RETURNS boolean
LANGUAGE sql STABLE AS $$
    SELECT current_user = 'legal_ai_worker'
           AND EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'legal_ai_worker')
$$;

-- An agent: the agent's role, or a login that is an agent's only (a member of legal_ai_agent
-- that can become neither the chair nor the worker: an agent's own database credentials). The
-- application's login is a member of all three roles, and a superuser of every role: neither is
-- an agent.
CREATE FUNCTION acting_as_agent() RETURNS boolean
LANGUAGE sql STABLE AS $$
    SELECT current_user = 'legal_ai_agent'
        OR (EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'legal_ai_agent')
            AND pg_catalog.pg_has_role(current_user, 'legal_ai_agent', 'MEMBER')
            AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles r
                            WHERE r.rolname IN ('legal_ai_chair', 'legal_ai_worker')
                              AND pg_catalog.pg_has_role(current_user, r.oid, 'MEMBER')))
$$;

-- A request role (what an authenticated caller's transactions run as, or an agent's own
-- login), as opposed to the login's own role (the operator, the schema owner).
CREATE FUNCTION acting_as_request() RETURNS boolean
LANGUAGE sql STABLE AS $$
    SELECT current_user IN ('legal_ai_chair', 'legal_ai_worker') OR acting_as_agent()
$$;

-- ---------------------------------------------------------------------------------------------
-- Model calls: who made each one is the session's role, never the writer's claim.
ALTER TABLE model_calls ADD COLUMN db_role text NOT NULL DEFAULT current_user;

CREATE FUNCTION model_call_record() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.db_role := current_user;
    NEW.at := now();
    RETURN NEW;
END $$;
CREATE TRIGGER model_calls_record BEFORE INSERT ON model_calls
    FOR EACH ROW EXECUTE FUNCTION model_call_record();

-- Whether a model_calls row backs a vote of `model` at `stage` (a call the system made).
CREATE FUNCTION system_call(call_id bigint, stage_name text, model_name text) RETURNS boolean
LANGUAGE sql STABLE AS $$
    SELECT EXISTS (
        SELECT 1 FROM model_calls c
        WHERE c.id = call_id AND c.outcome = 'ok' AND c.stage = stage_name
          AND c.db_role = 'legal_ai_worker' AND c.provider || ':' || c.model = model_name)
$$;

-- ---------------------------------------------------------------------------------------------
-- Style lessons: verdicts tied to the calls; the panel decides only what the system distilled.
ALTER TABLE panel_verdicts ADD COLUMN model_call_id bigint REFERENCES model_calls (id);
ALTER TABLE panel_verdicts ADD CONSTRAINT panel_verdicts_one_per_call UNIQUE (model_call_id);
ALTER TABLE decision_lessons ADD COLUMN proposed_role text;

CREATE FUNCTION panel_verdict_gate() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    lesson record;
    call record;
BEGIN
    IF NOT acting_as_worker() THEN
        RAISE EXCEPTION 'a panel verdict is the system''s own: only the worker''s panel writes '
            'one (running as %)', current_user USING ERRCODE = 'check_violation';
    END IF;
    SELECT id, created_at, job_id INTO lesson FROM decision_lessons WHERE id = NEW.lesson_id;
    SELECT at, job_id INTO call FROM model_calls WHERE id = NEW.model_call_id;
    IF NEW.model_call_id IS NULL OR NOT system_call(NEW.model_call_id, 'panel', NEW.model)
       OR call.at < lesson.created_at
       OR (lesson.job_id IS NOT NULL AND call.job_id IS DISTINCT FROM lesson.job_id) THEN
        RAISE EXCEPTION 'a panel verdict names the call the system made to % for this lesson '
            '(in its job)', NEW.model USING ERRCODE = 'check_violation';
    END IF;
    NEW.created_at := now();
    RETURN NEW;
END $$;
CREATE TRIGGER panel_verdicts_gate BEFORE INSERT ON panel_verdicts
    FOR EACH ROW EXECUTE FUNCTION panel_verdict_gate();

CREATE OR REPLACE FUNCTION lesson_gate() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    lesson_kind text;
    before text := CASE WHEN TG_OP = 'UPDATE' THEN OLD.review_status END;
    chair boolean := acting_as_chair();
    tally record;
    outcome text;
BEGIN
    IF TG_OP = 'INSERT' THEN
        NEW.proposed_role := current_user;
        NEW.panel_models := NULL;
        IF NEW.review_status = 'proposed' THEN
            NEW.reviewed_by := NULL;  -- a proposal names no decider
        END IF;
    ELSIF NEW.proposed_role IS DISTINCT FROM OLD.proposed_role THEN
        RAISE EXCEPTION 'lesson %: who proposed it is kept', OLD.id USING ERRCODE = 'check_violation';
    END IF;
    IF TG_OP = 'UPDATE' AND OLD.review_status <> 'proposed'
       AND (NEW.category, NEW.text, NEW.source) IS DISTINCT FROM (OLD.category, OLD.text, OLD.source)
    THEN
        RAISE EXCEPTION 'lesson % is %: its category, text and source are frozen',
            OLD.id, OLD.review_status USING ERRCODE = 'check_violation';
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.review_status IS NOT DISTINCT FROM OLD.review_status THEN
        IF OLD.review_status <> 'proposed'
           AND (NEW.reviewed_by, NEW.reviewed_at, NEW.review_reason, NEW.panel_models)
               IS DISTINCT FROM (OLD.reviewed_by, OLD.reviewed_at, OLD.review_reason, OLD.panel_models)
        THEN
            RAISE EXCEPTION 'lesson % is %: its review is recorded once, with its decision',
                OLD.id, OLD.review_status USING ERRCODE = 'check_violation';
        END IF;
        IF NEW.panel_models IS DISTINCT FROM OLD.panel_models THEN
            RAISE EXCEPTION 'lesson %: the panel''s models are the verdicts'' (computed)', OLD.id
                USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
    END IF;
    SELECT kind INTO lesson_kind FROM lesson_categories WHERE category = NEW.category;
    IF TG_OP = 'INSERT' AND NEW.review_status <> 'proposed'
       AND (NEW.reviewed_by IS DISTINCT FROM 'chair' OR NOT chair) THEN
        RAISE EXCEPTION 'a lesson starts proposed (only the chair''s role writes one she decided herself)'
            USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.review_status <> 'proposed' AND coalesce(btrim(NEW.reviewed_by), '') = '' THEN
        RAISE EXCEPTION 'a review decision must say who made it' USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.reviewed_by = 'chair' AND NOT chair THEN
        RAISE EXCEPTION 'a decision in the chair''s name must run as the chair''s role, not as %',
            current_user USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.review_status = 'approved' AND lesson_kind = 'substance'
       AND NEW.reviewed_by IS DISTINCT FROM 'chair' THEN
        RAISE EXCEPTION 'substance (%) is approved by the chair only, not by %',
            NEW.category, NEW.reviewed_by USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.review_status IN ('approved', 'rejected')
       AND NEW.reviewed_by NOT IN ('chair', 'panel') THEN
        RAISE EXCEPTION 'only the chair or a 2/2 panel decides a lesson, not %', NEW.reviewed_by
            USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.reviewed_by = 'panel' AND NEW.review_status <> 'proposed' THEN
        IF NOT acting_as_worker() THEN
            RAISE EXCEPTION 'only the system''s panel decides as the panel (running as %)',
                current_user USING ERRCODE = 'check_violation';
        END IF;
        IF before IS DISTINCT FROM 'proposed' OR NEW.review_status NOT IN ('approved', 'rejected')
           OR lesson_kind <> 'style' THEN
            RAISE EXCEPTION 'a panel decides proposed style lessons only'
                USING ERRCODE = 'check_violation';
        END IF;
        IF NEW.source IS DISTINCT FROM 'distillation'
           OR NEW.proposed_role IS DISTINCT FROM 'legal_ai_worker' OR OLD.needs_chair
           OR OLD.reviewed_by IS NOT NULL THEN
            RAISE EXCEPTION 'lesson %: the panel votes only on style lessons the system distilled; '
                'curator findings and proposals wait for the chair', NEW.id
                USING ERRCODE = 'check_violation';
        END IF;
        SELECT count(*) AS n, count(DISTINCT v.model) AS models,
               bool_and(v.vote = 'approve') AS approve, bool_and(v.vote = 'reject') AS reject,
               string_agg(v.model, '+' ORDER BY v.id) AS names
        INTO tally FROM panel_verdicts v
        WHERE v.lesson_id = NEW.id AND v.model_call_id IS NOT NULL;
        IF tally.n <> 2 OR tally.models <> 2 THEN
            RAISE EXCEPTION 'lesson %: a panel decision rests on two verdicts of two models the '
                'system called (% found)', NEW.id, tally.n USING ERRCODE = 'check_violation';
        END IF;
        outcome := CASE WHEN tally.approve THEN 'approved' WHEN tally.reject THEN 'rejected' END;
        IF outcome IS DISTINCT FROM NEW.review_status THEN
            RAISE EXCEPTION 'lesson %: the verdicts give %, not %', NEW.id,
                coalesce(outcome, 'a split (the chair decides)'), NEW.review_status
                USING ERRCODE = 'check_violation';
        END IF;
        NEW.panel_models := 'panel:' || tally.names;
    ELSIF TG_OP = 'UPDATE' AND NEW.panel_models IS DISTINCT FROM OLD.panel_models THEN
        NEW.panel_models := OLD.panel_models;
    END IF;
    IF NEW.review_status = 'vetoed' AND (NEW.reviewed_by IS DISTINCT FROM 'chair'
                                         OR before IS DISTINCT FROM 'approved') THEN
        RAISE EXCEPTION 'only the chair vetoes, and only an approved lesson'
            USING ERRCODE = 'check_violation';
    END IF;
    NEW.reviewed_at := CASE WHEN NEW.review_status = 'proposed' THEN NULL ELSE now() END;
    RETURN NEW;
END $$;

-- ---------------------------------------------------------------------------------------------
-- Principles: the panel's votes, one row per model of the panel and principle, each tied to the
-- extraction call of that model. Append-only.
CREATE TABLE principle_votes (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    principle_id  bigint NOT NULL,
    source_kind   text NOT NULL,
    model         text NOT NULL CHECK (btrim(model) <> ''),
    model_call_id bigint NOT NULL REFERENCES model_calls (id),
    voted         boolean NOT NULL,   -- the model proposed this principle
    score         double precision CHECK (score >= 0 AND score <= 1),
    created_at    timestamptz NOT NULL DEFAULT now(),
    UNIQUE (principle_id, model),
    CHECK (NOT voted OR score IS NOT NULL)
);
CREATE INDEX principle_votes_principle_idx ON principle_votes (principle_id);
CREATE TRIGGER principle_votes_append_only BEFORE UPDATE OR DELETE ON principle_votes
    FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER principle_votes_no_truncate BEFORE TRUNCATE ON principle_votes
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();

CREATE FUNCTION principle_vote_gate() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    principle record;
    call record;
BEGIN
    IF NOT acting_as_worker() THEN
        RAISE EXCEPTION 'a principle vote is the system''s own: only the worker''s panel writes '
            'one (running as %)', current_user USING ERRCODE = 'check_violation';
    END IF;
    SELECT created_at, job_id INTO principle FROM case_law_principles
    WHERE id = NEW.principle_id AND source_kind = NEW.source_kind;
    SELECT at, job_id INTO call FROM model_calls WHERE id = NEW.model_call_id;
    IF principle.created_at IS NULL
       OR NOT system_call(NEW.model_call_id, 'principle_panel', NEW.model)
       OR call.at > principle.created_at
       OR (principle.job_id IS NOT NULL AND call.job_id IS DISTINCT FROM principle.job_id) THEN
        RAISE EXCEPTION 'a principle vote names the extraction call the system made to % for '
            'that principle''s ruling', NEW.model USING ERRCODE = 'check_violation';
    END IF;
    NEW.created_at := now();
    RETURN NEW;
END $$;
CREATE TRIGGER principle_votes_gate BEFORE INSERT ON principle_votes
    FOR EACH ROW EXECUTE FUNCTION principle_vote_gate();

ALTER TABLE case_law_principles
    ADD COLUMN confirmed_by text,
    ADD COLUMN confirmed_at timestamptz;

CREATE OR REPLACE FUNCTION principle_gate() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    before text := CASE WHEN TG_OP = 'UPDATE' THEN OLD.review_status END;
    chair boolean := acting_as_chair();
    tally record;
    outcome text;
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.review_status <> 'proposed'
       AND (NEW.rule_text, NEW.supporting_quote, NEW.case_law_id)
           IS DISTINCT FROM (OLD.rule_text, OLD.supporting_quote, OLD.case_law_id) THEN
        RAISE EXCEPTION 'principle % is %: its rule, quote and source are frozen',
            OLD.id, OLD.review_status USING ERRCODE = 'check_violation';
    END IF;
    -- The panel's record is the votes' (computed here); rows of releases before the votes keep
    -- theirs.
    SELECT count(*) AS n, count(*) FILTER (WHERE v.voted) AS votes,
           round(avg(v.score) FILTER (WHERE v.voted)::numeric, 4)::double precision AS score,
           string_agg(v.model, ',' ORDER BY v.model) FILTER (WHERE v.voted) AS models
    INTO tally FROM principle_votes v
    WHERE TG_OP = 'UPDATE' AND v.principle_id = NEW.id AND v.source_kind = NEW.source_kind;
    IF tally.n > 0 THEN
        NEW.votes := tally.votes;
        NEW.score := tally.score;
        NEW.models := tally.models;
    ELSIF TG_OP = 'INSERT' THEN
        NEW.votes := NULL;
        NEW.score := NULL;
        NEW.models := NULL;
    ELSE
        NEW.votes := OLD.votes;
        NEW.score := OLD.score;
        NEW.models := OLD.models;
    END IF;
    -- The chair's confirmation of what the panel approved.
    IF TG_OP = 'INSERT' AND (NEW.confirmed_by, NEW.confirmed_at) IS DISTINCT FROM (NULL, NULL) THEN
        RAISE EXCEPTION 'a principle is confirmed by the chair after the panel approved it'
            USING ERRCODE = 'check_violation';
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.confirmed_by IS DISTINCT FROM OLD.confirmed_by THEN
        IF NOT chair OR NEW.confirmed_by IS DISTINCT FROM 'chair' OR OLD.confirmed_by IS NOT NULL
           OR OLD.review_status <> 'approved' OR NEW.review_status <> 'approved'
           OR OLD.reviewed_by IS DISTINCT FROM 'panel' THEN
            RAISE EXCEPTION 'principle %: only the chair confirms what the panel approved (once)',
                OLD.id USING ERRCODE = 'check_violation';
        END IF;
        NEW.confirmed_at := now();
    ELSIF TG_OP = 'UPDATE' THEN
        NEW.confirmed_at := OLD.confirmed_at;
    END IF;
    IF NEW.reviewed_by IS NOT DISTINCT FROM 'panel'
       AND (TG_OP = 'INSERT' OR NEW.review_status IS DISTINCT FROM OLD.review_status
            OR OLD.reviewed_by IS DISTINCT FROM 'panel') THEN
        IF NOT acting_as_worker() THEN
            RAISE EXCEPTION 'only the system''s panel decides a principle as the panel (running '
                'as %)', current_user USING ERRCODE = 'check_violation';
        END IF;
        IF TG_OP = 'INSERT' OR before <> 'proposed' OR OLD.reviewed_by IS NOT NULL THEN
            RAISE EXCEPTION 'the panel decides a proposed principle nobody decided before, on '
                'its recorded votes' USING ERRCODE = 'check_violation';
        END IF;
        IF tally.n < 3 THEN
            RAISE EXCEPTION 'principle %: a panel decision rests on the votes of the three models '
                'the system called (% found)', NEW.id, tally.n USING ERRCODE = 'check_violation';
        END IF;
        outcome := principle_panel_outcome(NEW.votes, NEW.score);
        IF NEW.review_status IS DISTINCT FROM outcome OR outcome = 'proposed' THEN
            RAISE EXCEPTION 'the panel''s rule gives % for % votes and score %, not %', outcome,
                NEW.votes, NEW.score, NEW.review_status USING ERRCODE = 'check_violation';
        END IF;
        NEW.reviewed_at := now();
        RETURN NEW;
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.review_status IS NOT DISTINCT FROM OLD.review_status THEN
        IF OLD.review_status <> 'proposed'
           AND (NEW.reviewed_by, NEW.reviewed_at, NEW.review_reason)
               IS DISTINCT FROM (OLD.reviewed_by, OLD.reviewed_at, OLD.review_reason) THEN
            RAISE EXCEPTION 'principle % is %: its review is recorded once, with its decision',
                OLD.id, OLD.review_status USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.review_status = 'proposed' AND NOT chair THEN
        RAISE EXCEPTION 'principle % is %: only the chair reopens it for review', OLD.id, before
            USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.review_status <> 'proposed' THEN
        IF NEW.reviewed_by IS DISTINCT FROM 'chair' OR NOT chair THEN
            RAISE EXCEPTION 'a principle is substance: only the chair approves, rejects or vetoes '
                'it (not %, running as %)', coalesce(NEW.reviewed_by, 'an unnamed writer'),
                current_user USING ERRCODE = 'check_violation';
        END IF;
        IF NEW.review_status = 'vetoed' AND before IS DISTINCT FROM 'approved' THEN
            RAISE EXCEPTION 'only an approved principle is vetoed' USING ERRCODE = 'check_violation';
        END IF;
    END IF;
    IF NEW.review_status <> 'approved' THEN
        NEW.confirmed_by := NULL;
        NEW.confirmed_at := NULL;
    END IF;
    NEW.reviewed_at := CASE WHEN NEW.review_status = 'proposed' THEN NULL ELSE now() END;
    RETURN NEW;
END $$;

-- Whether a principle reaches what the writer reads: the chair approved it, or confirmed the
-- panel's approval.
CREATE FUNCTION principle_for_writer(status text, reviewed_by text, confirmed_by text)
RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
    SELECT status = 'approved' AND (reviewed_by = 'chair' OR confirmed_by = 'chair')
$$;

-- The principle audit names the chair's confirmation.
CREATE OR REPLACE FUNCTION principle_audit() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.confirmed_by IS DISTINCT FROM OLD.confirmed_by THEN
        INSERT INTO learning_audit (actor, action, principle_id, from_status, to_status, reason,
                                    details)
        VALUES ('chair', 'confirm_principle', NEW.id, OLD.review_status, NEW.review_status,
                NEW.review_reason,
                jsonb_build_object('case_law_id', NEW.case_law_id, 'source_kind', NEW.source_kind,
                                   'approved_by', OLD.reviewed_by, 'votes', NEW.votes,
                                   'score', NEW.score));
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.review_status IS NOT DISTINCT FROM OLD.review_status THEN
        RETURN NULL;
    END IF;
    INSERT INTO learning_audit (actor, action, principle_id, from_status, to_status, reason,
                                details)
    VALUES (CASE WHEN NEW.reviewed_by IN ('chair', 'panel') THEN NEW.reviewed_by
                 WHEN acting_as_chair() THEN 'chair'
                 WHEN current_user = 'legal_ai_worker' THEN 'system:principle-panel'
                 WHEN acting_as_agent() THEN 'agent:unnamed'
                 ELSE 'operator' END,
            lower(TG_OP) || '_principle', NEW.id,
            CASE WHEN TG_OP = 'UPDATE' THEN OLD.review_status END, NEW.review_status,
            NEW.review_reason,
            jsonb_build_object('case_law_id', NEW.case_law_id, 'source_kind', NEW.source_kind,
                               'votes', NEW.votes, 'score', NEW.score, 'models', NEW.models));
    RETURN NULL;
END $$;

-- ---------------------------------------------------------------------------------------------
-- Canonical principles: statuses move only as the gate allows, and the review record is the
-- chair's. (0017's gate, and: the synthesizer's move is the worker's; nothing else of status or
-- review changes but by the chair's role; a decided canonical's reviewed_by is frozen.)
CREATE OR REPLACE FUNCTION canonical_gate() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    chair boolean := acting_as_chair();
    synthesis boolean;
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.status <> 'pending_synthesis'
           OR (NEW.reviewed_by, NEW.review_reason, NEW.canonical_statement)
              IS DISTINCT FROM (NULL, NULL, NULL) THEN
            RAISE EXCEPTION 'a canonical principle starts pending synthesis, in its source wording'
                USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF NEW.source_kind IS DISTINCT FROM OLD.source_kind THEN
        RAISE EXCEPTION 'a canonical principle stays in its corpus' USING ERRCODE = 'check_violation';
    END IF;
    synthesis := OLD.status = 'pending_synthesis' AND NEW.status = 'pending_review';
    IF NEW.status IS DISTINCT FROM OLD.status THEN
        IF synthesis THEN
            IF NOT (acting_as_worker() OR chair) THEN
                RAISE EXCEPTION 'canonical principle %: the synthesizer (the worker) writes the '
                    'statement for review (running as %)', OLD.id, current_user
                    USING ERRCODE = 'check_violation';
            END IF;
        ELSIF NOT chair THEN
            RAISE EXCEPTION 'a canonical principle is substance: only the chair moves it % -> % '
                '(running as %)', OLD.status, NEW.status, current_user
                USING ERRCODE = 'check_violation';
        END IF;
    END IF;
    IF NOT chair AND NOT synthesis
       AND (NEW.canonical_statement, NEW.rule_text) IS DISTINCT FROM
           (OLD.canonical_statement, OLD.rule_text) THEN
        RAISE EXCEPTION 'only the chair edits the statement of canonical principle % (the '
            'synthesizer writes it once, moving it to her review)', OLD.id
            USING ERRCODE = 'check_violation';
    END IF;
    IF (NEW.reviewed_by, NEW.review_reason) IS DISTINCT FROM (OLD.reviewed_by, OLD.review_reason)
       AND (NOT chair OR (OLD.status IN ('approved', 'rejected') AND NEW.status = OLD.status
                          AND NEW.reviewed_by IS DISTINCT FROM OLD.reviewed_by)) THEN
        RAISE EXCEPTION 'canonical principle %: its review is the chair''s, recorded with her '
            'decision', OLD.id USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.status IS DISTINCT FROM OLD.status THEN
        NEW.reviewed_at := CASE WHEN NEW.status IN ('approved', 'rejected') THEN now() END;
    ELSE
        NEW.reviewed_at := OLD.reviewed_at;
    END IF;
    NEW.updated_at := now();
    RETURN NEW;
END $$;


-- ---------------------------------------------------------------------------------------------
-- Voice documents, enrichments, search marks: where the chair's role cannot be told (no roles)
-- their gates refused to trust the row only through acting_as_chair(), which now says false.

-- case_law's enrichment columns: only the chair's role (her approval of an enrichment) or the
-- login's own role (ingest by the operator) writes them.
CREATE FUNCTION case_law_enrichment_columns() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    stored record;
BEGIN
    IF TG_OP = 'INSERT' THEN  -- an upsert of a stored ruling (OCR) carries its fields again
        SELECT headnote, summary, tags INTO stored FROM case_law
        WHERE doc_id = NEW.doc_id AND source_kind = NEW.source_kind;
    ELSE
        stored := OLD;
    END IF;
    IF (acting_as_agent() OR acting_as_worker())
       AND (NULLIF(NEW.headnote, ''), NULLIF(NEW.summary, ''), coalesce(NEW.tags, '{}'))
           IS DISTINCT FROM (NULLIF(stored.headnote, ''), NULLIF(stored.summary, ''),
                             coalesce(stored.tags, '{}')) THEN
        RAISE EXCEPTION 'a decision''s headnote, summary and tags reach the library only through '
            'the chair''s approval of an enrichment (running as %)', current_user
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER case_law_enrichment_columns BEFORE INSERT OR UPDATE ON case_law
    FOR EACH ROW EXECUTE FUNCTION case_law_enrichment_columns();

-- ---------------------------------------------------------------------------------------------
-- Her style corpus (her signed finals, what the writer's exemplars and templates are cut from)
-- is written by her upload, the operator's ingest or the system's stages, never by an agent.
CREATE FUNCTION style_documents_gate() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF acting_as_agent()
       AND ((TG_OP <> 'DELETE' AND NEW.corpus = 'style')
            OR (TG_OP <> 'INSERT' AND OLD.corpus = 'style')) THEN
        RAISE EXCEPTION 'the chair''s finals (the style corpus) are not an agent''s to write'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
END $$;
CREATE TRIGGER documents_style_gate BEFORE INSERT OR UPDATE OR DELETE ON documents
    FOR EACH ROW EXECUTE FUNCTION style_documents_gate();

-- ---------------------------------------------------------------------------------------------
-- Jobs an agent may queue (item 6, held in SQL too): the extraction of one stored ruling's
-- current text, queued, in an agent's name, and no more than 100 agents' requests open at once.
-- Running, re-aiming or cancelling a job is not an agent's (no UPDATE or DELETE, below).
CREATE FUNCTION jobs_gate() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NOT acting_as_agent() THEN
        RETURN NEW;
    END IF;
    IF NEW.kind <> 'principles' OR NEW.status <> 'queued' OR NEW.attempts <> 0
       OR coalesce(NEW.result ->> 'requested_by', '') NOT LIKE 'agent:%'
       OR NOT EXISTS (SELECT 1 FROM case_law c
                      WHERE 'principles:' || c.id || ':' || c.content_hash = NEW.key) THEN
        RAISE EXCEPTION 'an agent queues only the extraction of one stored ruling''s current '
            'text, in its own name' USING ERRCODE = 'check_violation';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM jobs WHERE key = NEW.key)
       AND (SELECT count(*) FROM jobs WHERE status IN ('queued', 'running', 'waiting')
              AND result ->> 'requested_by' LIKE 'agent:%') >= 100 THEN
        RAISE EXCEPTION 'agents have 100 requests open: ask again when the worker has run them'
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER jobs_gate BEFORE INSERT ON jobs FOR EACH ROW EXECUTE FUNCTION jobs_gate();

-- ---------------------------------------------------------------------------------------------
-- Chair feedback: who wrote it (item 3).
ALTER TABLE chair_feedback
    ADD COLUMN actor text NOT NULL DEFAULT 'operator' CHECK (btrim(actor) <> ''),
    ADD COLUMN db_role text NOT NULL DEFAULT current_user;

CREATE FUNCTION chair_feedback_record() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        IF acting_as_request() THEN
            RAISE EXCEPTION 'chair feedback is kept as it was written (running as %)', current_user
                USING ERRCODE = 'check_violation';
        END IF;
        NEW.actor := OLD.actor;  -- who wrote it is never rewritten, not even by the owner
        NEW.db_role := OLD.db_role;
        RETURN NEW;
    END IF;
    NEW.db_role := current_user;
    IF (NEW.actor = 'chair') IS DISTINCT FROM acting_as_chair() THEN
        RAISE EXCEPTION 'feedback in the chair''s name is written by her role only, and hers '
            'in no other name (running as %, actor %)', current_user, NEW.actor
            USING ERRCODE = 'check_violation';
    END IF;
    IF acting_as_agent() AND NEW.actor NOT LIKE 'agent:%' THEN
        RAISE EXCEPTION 'an agent''s feedback carries the agent''s name (agent:NAME), not %',
            NEW.actor USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER chair_feedback_record BEFORE INSERT OR UPDATE ON chair_feedback
    FOR EACH ROW EXECUTE FUNCTION chair_feedback_record();

-- ---------------------------------------------------------------------------------------------
-- The audit: db_role and time forced from the session; no direct row from an agent's role;
-- `chair` and `panel` only under their roles.
CREATE FUNCTION audit_record() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.db_role := current_user;
    NEW.at := now();
    IF acting_as_agent() AND pg_catalog.pg_trigger_depth() < 2 THEN
        RAISE EXCEPTION 'the audit is written by the database, not by an agent''s statement'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF NEW.actor = 'chair' AND NOT acting_as_chair() THEN
        RAISE EXCEPTION 'an audit row in the chair''s name is written under her role only '
            '(running as %)', current_user USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.actor = 'panel' AND NOT acting_as_worker() THEN
        RAISE EXCEPTION 'an audit row in the panel''s name is written under the worker''s role '
            'only (running as %)', current_user USING ERRCODE = 'check_violation';
    END IF;
    IF acting_as_request() AND NEW.actor = 'operator' THEN
        RAISE EXCEPTION 'an audit row in the operator''s name is not written by a request '
            '(running as %)', current_user USING ERRCODE = 'check_violation';
    END IF;
    IF acting_as_agent() AND NEW.actor NOT LIKE 'agent:%' THEN
        NEW.actor := 'agent:' || NEW.actor;  -- what an agent's action wrote is the agent's
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER learning_audit_record BEFORE INSERT ON learning_audit
    FOR EACH ROW EXECUTE FUNCTION audit_record();

CREATE FUNCTION version_record() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.db_role := current_user;
    NEW.at := now();
    RETURN NEW;
END $$;
CREATE TRIGGER canonical_statement_versions_record BEFORE INSERT ON canonical_statement_versions
    FOR EACH ROW EXECUTE FUNCTION version_record();

CREATE FUNCTION item_version_record() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.recorded_by := current_user;
    NEW.recorded_at := now();
    RETURN NEW;
END $$;
CREATE TRIGGER item_versions_record BEFORE INSERT ON item_versions
    FOR EACH ROW EXECUTE FUNCTION item_version_record();

-- ---------------------------------------------------------------------------------------------
-- Privileges. apply_role_grants (0014's, and 0010's within it) gives the request roles the
-- working tables; this version adds the worker's role and takes from the agent's what it must
-- not write, each time it runs (migrate, restore).
ALTER FUNCTION apply_role_grants() RENAME TO apply_role_grants_0014;

CREATE FUNCTION apply_role_grants() RETURNS boolean
LANGUAGE plpgsql AS $grants$
DECLARE
    granted boolean := apply_role_grants_0014();
    schema_name text := current_schema();
    t text;
    columns text;
BEGIN
    IF NOT granted THEN
        RETURN false;
    END IF;
    -- TEMP: nobody but the owner makes temporary objects (a temp table named like a catalog, a
    -- temp trigger writing the audit). Only the database's owner may revoke it.
    BEGIN
        EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC', current_database());
        EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM legal_ai_agent, legal_ai_chair',
                       current_database());
    EXCEPTION WHEN insufficient_privilege THEN
        RAISE NOTICE 'legal-ai: only the database''s owner revokes TEMP from PUBLIC; do it there';
    END;
    BEGIN
        EXECUTE format('REVOKE CREATE ON SCHEMA %I FROM PUBLIC', schema_name);
    EXCEPTION WHEN insufficient_privilege THEN
        NULL;
    END;
    -- What nobody's request role writes: the vocabularies (and the worker neither).
    FOREACH t IN ARRAY ARRAY['lesson_categories', 'corpus_requirements', 'decision_blocks']
    LOOP
        EXECUTE format('REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON %I '
                       'FROM legal_ai_agent, legal_ai_chair', t);
    END LOOP;
    -- What only the system's stages (the worker) or the chair write: never an agent's role.
    FOR t IN
        SELECT c.relname FROM pg_catalog.pg_class c
        WHERE c.relnamespace = schema_name::regnamespace
          AND (c.relname = ANY (ARRAY['model_calls', 'panel_verdicts', 'principle_votes',
                                      'canonical_principles', 'synthesis_attempts',
                                      'case_law_enrichments', 'voice_documents',
                                      'case_law_principles'])
               OR c.oid IN (SELECT i.inhrelid FROM pg_catalog.pg_inherits i
                            WHERE i.inhparent = 'case_law_principles'::regclass))
    LOOP
        EXECUTE format('REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON %I FROM legal_ai_agent', t);
    END LOOP;
    REVOKE UPDATE ON decision_lessons FROM legal_ai_agent;
    REVOKE UPDATE, DELETE, TRUNCATE ON chair_feedback FROM legal_ai_agent;
    REVOKE INSERT ON model_calls, panel_verdicts, principle_votes FROM legal_ai_chair;
    -- The library, her style corpus and what the writer reads of it, and the scheduler: the
    -- agent's role writes none of it (an agent uploads drafts of the case corpus, proposes,
    -- relays feedback and queues one item's extraction: jobs INSERT, checked by jobs_gate).
    FOR t IN
        SELECT c.relname FROM pg_catalog.pg_class c
        WHERE c.relnamespace = schema_name::regnamespace AND c.relkind IN ('r', 'p')
          AND (c.relname = ANY (ARRAY['case_law', 'case_law_chunks', 'case_law_page_images',
                                      'digests', 'digest_chunks', 'block_exemplars',
                                      'block_templates', 'template_state', 'schedules',
                                      'schedule_runs', 'document_chunks_style',
                                      'document_page_images_style', 'methodology_profiles'])
               OR c.oid IN (SELECT i.inhrelid FROM pg_catalog.pg_inherits i
                            WHERE i.inhparent IN ('case_law_chunks'::regclass,
                                                  'case_law_page_images'::regclass)))
    LOOP
        EXECUTE format('REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON %I FROM legal_ai_agent', t);
    END LOOP;
    REVOKE UPDATE, DELETE, TRUNCATE ON jobs FROM legal_ai_agent;
    -- Append-only for every request role.
    FOREACH t IN ARRAY ARRAY['learning_audit', 'style_distance_history', 'item_versions',
                             'panel_verdicts', 'model_calls', 'principle_votes',
                             'canonical_statement_versions', 'synthesis_attempts']
    LOOP
        IF to_regclass(t) IS NOT NULL THEN
            EXECUTE format('REVOKE UPDATE, DELETE, TRUNCATE ON %I '
                           'FROM legal_ai_agent, legal_ai_chair', t);
        END IF;
    END LOOP;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'legal_ai_worker') THEN
        RETURN false;
    END IF;
    BEGIN
        EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM legal_ai_worker', current_database());
    EXCEPTION WHEN insufficient_privilege THEN
        NULL;
    END;
    -- The worker: the working tables, as the agent's role had them.
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO legal_ai_worker', schema_name);
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA %I '
                   'TO legal_ai_worker', schema_name);
    EXECUTE format('GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA %I TO legal_ai_worker',
                   schema_name);
    EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT SELECT, INSERT, UPDATE, DELETE '
                   'ON TABLES TO legal_ai_worker', schema_name);
    EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT USAGE, SELECT '
                   'ON SEQUENCES TO legal_ai_worker', schema_name);
    REVOKE ALL ON desk_users, desk_sessions, desk_login_failures FROM legal_ai_worker;
    REVOKE INSERT, UPDATE, DELETE ON methodology_profiles, methodology_profile_versions
        FROM legal_ai_worker;
    REVOKE UPDATE ON decision_lessons FROM legal_ai_worker;
    SELECT string_agg(quote_ident(column_name), ', ') INTO columns
    FROM information_schema.columns
    WHERE table_schema = schema_name AND table_name = 'decision_lessons'
      AND column_name = ANY (ARRAY['review_status', 'reviewed_by', 'reviewed_at', 'review_reason',
                                   'needs_chair', 'panel_models', 'corroboration']);
    EXECUTE format('GRANT UPDATE (%s) ON decision_lessons TO legal_ai_worker', columns);
    FOREACH t IN ARRAY ARRAY['lesson_categories', 'corpus_requirements', 'decision_blocks']
    LOOP
        EXECUTE format('REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON %I FROM legal_ai_worker', t);
    END LOOP;
    FOREACH t IN ARRAY ARRAY['learning_audit', 'style_distance_history', 'item_versions',
                             'panel_verdicts', 'model_calls', 'principle_votes',
                             'canonical_statement_versions', 'synthesis_attempts']
    LOOP
        IF to_regclass(t) IS NOT NULL THEN
            EXECUTE format('REVOKE UPDATE, DELETE, TRUNCATE ON %I FROM legal_ai_worker', t);
        END IF;
    END LOOP;
    REVOKE UPDATE, DELETE, TRUNCATE ON chair_feedback FROM legal_ai_worker;
    REVOKE DELETE ON decision_lessons, case_law_principles FROM legal_ai_worker;
    RETURN true;
END $grants$;

-- Every function of this schema (not an extension's) pins its search_path: pg_catalog first, the
-- schema, pg_temp last (a temporary object is never found before ours). The grant functions,
-- which only the migrating owner runs and which name the schema by current_schema(), put the
-- schema first. Run by each later migration that creates functions; checked by the tests
-- (tests/reliability/test_red_team.py).
CREATE FUNCTION pin_search_paths() RETURNS integer
LANGUAGE plpgsql AS $pin$
DECLARE
    f record;
    pinned integer := 0;
    here text := current_schema();
BEGIN
    FOR f IN
        SELECT p.oid::regprocedure AS signature, p.proname
        FROM pg_catalog.pg_proc p
        WHERE p.pronamespace = here::regnamespace AND p.prokind = 'f'
          AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend d
                          WHERE d.classid = 'pg_catalog.pg_proc'::regclass AND d.objid = p.oid
                            AND d.deptype = 'e')
          AND NOT EXISTS (SELECT 1 FROM unnest(coalesce(p.proconfig, '{}')) AS c
                          WHERE c LIKE 'search_path=%')
    LOOP
        IF f.proname LIKE 'apply\_role\_grants%' THEN
            EXECUTE format('ALTER FUNCTION %s SET search_path = %I, pg_catalog, pg_temp',
                           f.signature, here);
        ELSE
            EXECUTE format('ALTER FUNCTION %s SET search_path = pg_catalog, %I, pg_temp',
                           f.signature, here);
        END IF;
        pinned := pinned + 1;
    END LOOP;
    RETURN pinned;
END $pin$;

SELECT pin_search_paths();
SELECT apply_role_grants();

-- 0010_roles_and_history: who may decide, enforced in the database (issue 10).
--
-- Roles. Two NOLOGIN roles: `legal_ai_agent` (what an AI writing agent's requests run as) and
-- `legal_ai_chair` (what the chair's requests run as; a member of the agent role). The server sets
-- the role per transaction from the credential it authenticated (`SET LOCAL ROLE`). The gate
-- below decides by the role the transaction runs as, not by a string the writer supplies: a chair
-- decision made under any other role is refused. Roles are created here when the migrating login
-- may create them; where it may not, the gate falls back to the older check and `legal-ai health`
-- reports `roles_enforced: false` (docs/security.md).
--
-- Invariants that now hold against SQL too:
-- * append-only tables refuse UPDATE, DELETE and TRUNCATE (history, audit, item versions,
--   methodology versions, panel verdicts);
-- * a decided lesson's category, text and source are frozen; agents may not edit a lesson's
--   content at all (column privileges);
-- * the audit is written AFTER the row exists (a retried duplicate proposal writes nothing);
-- * principles' review_status is gated like lessons (substance: the chair only).
-- Every version of an item's text (ingest, finals) is kept in `item_versions`.

DO $roles$
BEGIN
    BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'legal_ai_agent') THEN
            CREATE ROLE legal_ai_agent NOLOGIN;
        END IF;
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'legal_ai_chair') THEN
            CREATE ROLE legal_ai_chair NOLOGIN;
        END IF;
    EXCEPTION
        WHEN duplicate_object OR unique_violation THEN
            NULL;  -- another database of this cluster created them at the same moment
        WHEN insufficient_privilege THEN
            RAISE NOTICE 'legal-ai: cannot create roles legal_ai_agent / legal_ai_chair here; '
                         'the database gate falls back to its older check (docs/security.md)';
    END;
END $roles$;

-- True when the transaction runs as the chair's role; false when it runs as any other role;
-- NULL when this server has no legal-ai roles (the gate then falls back to the older check).
CREATE FUNCTION acting_as_chair() RETURNS boolean
LANGUAGE sql STABLE AS $$
    SELECT CASE WHEN EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'legal_ai_chair')
                THEN current_user = 'legal_ai_chair' END
$$;

-- ---------------------------------------------------------------------------------------------
-- Item versions: every text an item ever had, append-only. Search reads the item (current).
CREATE TABLE item_versions (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    item_table   text    NOT NULL CHECK (item_table IN ('documents', 'case_law', 'digests')),
    item_id      bigint  NOT NULL,
    corpus       text    NOT NULL,
    doc_id       text    NOT NULL,
    case_number  text,
    version      integer NOT NULL,
    content      text    NOT NULL,
    content_hash text    NOT NULL,
    page_starts  integer[],
    source_path  text,
    recorded_at  timestamptz NOT NULL DEFAULT now(),
    recorded_by  text    NOT NULL DEFAULT current_user
);
CREATE INDEX item_versions_doc_idx ON item_versions (doc_id);
CREATE INDEX item_versions_item_idx ON item_versions (item_table, item_id, id);

CREATE FUNCTION record_item_version() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    corpus_key text := CASE TG_TABLE_NAME
        WHEN 'documents' THEN to_jsonb(NEW) ->> 'corpus'
        WHEN 'case_law' THEN CASE to_jsonb(NEW) ->> 'source_kind'
                                 WHEN 'external_upload' THEN 'external' ELSE 'internal' END
        ELSE 'digests' END;
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.content_hash IS NOT DISTINCT FROM OLD.content_hash THEN
        RETURN NULL;
    END IF;
    INSERT INTO item_versions (item_table, item_id, corpus, doc_id, case_number, version, content,
                               content_hash, page_starts, source_path)
    VALUES (TG_TABLE_NAME, NEW.id, corpus_key, NEW.doc_id, to_jsonb(NEW) ->> 'case_number',
            NEW.version, NEW.content, NEW.content_hash,
            NEW.page_starts,
            to_jsonb(NEW) ->> 'source_path');
    RETURN NULL;
END $$;

CREATE TRIGGER documents_versions AFTER INSERT OR UPDATE ON documents
    FOR EACH ROW EXECUTE FUNCTION record_item_version();
CREATE TRIGGER case_law_versions AFTER INSERT OR UPDATE ON case_law
    FOR EACH ROW EXECUTE FUNCTION record_item_version();
CREATE TRIGGER digests_versions AFTER INSERT OR UPDATE ON digests
    FOR EACH ROW EXECUTE FUNCTION record_item_version();

-- Items stored before this migration: their current text is their first recorded version.
INSERT INTO item_versions (item_table, item_id, corpus, doc_id, case_number, version, content,
                           content_hash, page_starts, source_path, recorded_at)
SELECT 'documents', id, corpus, doc_id, case_number, version, content, content_hash,
       page_starts, source_path, updated_at FROM documents;
INSERT INTO item_versions (item_table, item_id, corpus, doc_id, case_number, version, content,
                           content_hash, page_starts, source_path, recorded_at)
SELECT 'case_law', id, CASE source_kind WHEN 'external_upload' THEN 'external' ELSE 'internal' END,
       doc_id, case_number, version, content, content_hash, page_starts, source_path, updated_at
FROM case_law;
INSERT INTO item_versions (item_table, item_id, corpus, doc_id, case_number, version, content,
                           content_hash, page_starts, source_path, recorded_at)
SELECT 'digests', id, 'digests', doc_id, NULL, version, content, content_hash, page_starts,
       source_path, updated_at FROM digests;

-- ---------------------------------------------------------------------------------------------
-- Append-only, against TRUNCATE too (a statement trigger; row triggers never see TRUNCATE).
CREATE FUNCTION refuse_truncate() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only: TRUNCATE is refused', TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END $$;

DO $append_only$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['style_distance_history', 'learning_audit', 'item_versions',
                             'methodology_profile_versions', 'panel_verdicts']
    LOOP
        EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON %I '
                       'FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate()',
                       t || '_no_truncate', t);
    END LOOP;
    FOREACH t IN ARRAY ARRAY['item_versions', 'methodology_profile_versions', 'panel_verdicts']
    LOOP
        EXECUTE format('CREATE TRIGGER %I BEFORE UPDATE OR DELETE ON %I '
                       'FOR EACH ROW EXECUTE FUNCTION refuse_change()',
                       t || '_append_only', t);
    END LOOP;
END $append_only$;

-- ---------------------------------------------------------------------------------------------
-- Lessons: who proposed (from the credential), and the gate by role.
ALTER TABLE decision_lessons ADD COLUMN proposed_by text;
ALTER TABLE learning_audit ADD COLUMN db_role text NOT NULL DEFAULT current_user;
ALTER TABLE learning_audit ADD COLUMN principle_id bigint;
-- An audit row about a lesson names a lesson that exists (rows of older releases not checked).
ALTER TABLE learning_audit ADD CONSTRAINT learning_audit_lesson_exists
    FOREIGN KEY (lesson_id) REFERENCES decision_lessons (id) NOT VALID;

CREATE OR REPLACE FUNCTION lesson_gate() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    lesson_kind text;
    before text := CASE WHEN TG_OP = 'UPDATE' THEN OLD.review_status END;
    chair boolean := acting_as_chair();
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.review_status <> 'proposed'
       AND (NEW.category, NEW.text, NEW.source) IS DISTINCT FROM (OLD.category, OLD.text, OLD.source)
    THEN
        RAISE EXCEPTION 'lesson % is %: its category, text and source are frozen',
            OLD.id, OLD.review_status USING ERRCODE = 'check_violation';
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.review_status IS NOT DISTINCT FROM OLD.review_status THEN
        RETURN NEW;
    END IF;
    SELECT kind INTO lesson_kind FROM lesson_categories WHERE category = NEW.category;
    IF NEW.review_status <> 'proposed' AND coalesce(btrim(NEW.reviewed_by), '') = '' THEN
        RAISE EXCEPTION 'a review decision must say who made it' USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.reviewed_by = 'chair' AND chair IS FALSE THEN
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
    IF NEW.reviewed_by = 'panel' AND (before IS DISTINCT FROM 'proposed'
                                       OR NEW.review_status NOT IN ('approved', 'rejected')
                                       OR lesson_kind <> 'style') THEN
        RAISE EXCEPTION 'a panel decides proposed style lessons only' USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.review_status = 'vetoed' AND (NEW.reviewed_by IS DISTINCT FROM 'chair'
                                         OR before IS DISTINCT FROM 'approved') THEN
        RAISE EXCEPTION 'only the chair vetoes, and only an approved lesson'
            USING ERRCODE = 'check_violation';
    END IF;
    NEW.reviewed_at := CASE WHEN NEW.review_status = 'proposed' THEN NULL ELSE now() END;
    RETURN NEW;
END $$;

-- The audit moves to an AFTER trigger: it fires only for rows that were written.
CREATE FUNCTION lesson_audit() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.review_status IS NOT DISTINCT FROM OLD.review_status THEN
        RETURN NULL;
    END IF;
    INSERT INTO learning_audit (actor, action, lesson_id, case_number, from_status, to_status,
                                reason, details)
    VALUES (coalesce(CASE WHEN TG_OP = 'UPDATE' THEN NEW.reviewed_by END,
                     NEW.proposed_by, NEW.reviewed_by, NEW.source),
            lower(TG_OP) || '_lesson', NEW.id, NEW.case_number,
            CASE WHEN TG_OP = 'UPDATE' THEN OLD.review_status END, NEW.review_status,
            NEW.review_reason,
            jsonb_build_object('category', NEW.category,
                               'kind', (SELECT kind FROM lesson_categories
                                        WHERE category = NEW.category)));
    RETURN NULL;
END $$;

CREATE TRIGGER decision_lessons_audit AFTER INSERT OR UPDATE ON decision_lessons
    FOR EACH ROW EXECUTE FUNCTION lesson_audit();

-- ---------------------------------------------------------------------------------------------
-- Principles: the same gate (a principle is substance: only the chair approves, rejects or vetoes
-- it), frozen once decided, audited.
ALTER TABLE case_law_principles ADD COLUMN reviewed_by text;
ALTER TABLE case_law_principles ADD COLUMN reviewed_at timestamptz;
ALTER TABLE case_law_principles ADD COLUMN review_reason text;

CREATE FUNCTION principle_gate() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    before text := CASE WHEN TG_OP = 'UPDATE' THEN OLD.review_status END;
    chair boolean := acting_as_chair();
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.review_status <> 'proposed'
       AND (NEW.rule_text, NEW.supporting_quote, NEW.case_law_id)
           IS DISTINCT FROM (OLD.rule_text, OLD.supporting_quote, OLD.case_law_id) THEN
        RAISE EXCEPTION 'principle % is %: its rule, quote and source are frozen',
            OLD.id, OLD.review_status USING ERRCODE = 'check_violation';
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.review_status IS NOT DISTINCT FROM OLD.review_status THEN
        RETURN NEW;
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

CREATE TRIGGER case_law_principles_gate BEFORE INSERT OR UPDATE ON case_law_principles
    FOR EACH ROW EXECUTE FUNCTION principle_gate();

CREATE FUNCTION principle_audit() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.review_status IS NOT DISTINCT FROM OLD.review_status THEN
        RETURN NULL;
    END IF;
    INSERT INTO learning_audit (actor, action, principle_id, from_status, to_status, reason,
                                details)
    VALUES (coalesce(NEW.reviewed_by, 'proposer'), lower(TG_OP) || '_principle', NEW.id,
            CASE WHEN TG_OP = 'UPDATE' THEN OLD.review_status END, NEW.review_status,
            NEW.review_reason,
            jsonb_build_object('case_law_id', NEW.case_law_id, 'source_kind', NEW.source_kind));
    RETURN NULL;
END $$;

CREATE TRIGGER case_law_principles_audit AFTER INSERT OR UPDATE ON case_law_principles
    FOR EACH ROW EXECUTE FUNCTION principle_audit();

-- ---------------------------------------------------------------------------------------------
-- Privileges of the roles (when they exist). The chair's role has the agent's rights plus the
-- methodology; the agent's role reads everything, writes the working tables, may change only the
-- review columns of a lesson (and the gate decides what it may set), and truncates nothing.
-- A function, so that `legal-ai db migrate` can apply it again once a superuser has created the
-- roles on a server where the migrating login could not (idempotent).
CREATE FUNCTION apply_role_grants() RETURNS boolean
LANGUAGE plpgsql AS $grants$
DECLARE
    columns text;
    t text;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'legal_ai_agent')
       OR NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'legal_ai_chair') THEN
        RETURN false;
    END IF;
    BEGIN
        GRANT legal_ai_agent TO legal_ai_chair;
    EXCEPTION WHEN insufficient_privilege OR invalid_grant_operation THEN
        RAISE NOTICE 'legal-ai: could not grant legal_ai_agent to legal_ai_chair (made by a '
                     'superuser?); grant it there';
    END;
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO legal_ai_agent, legal_ai_chair', current_schema());
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA %I '
                   'TO legal_ai_agent, legal_ai_chair', current_schema());
    EXECUTE format('GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA %I '
                   'TO legal_ai_agent, legal_ai_chair', current_schema());
    EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT SELECT, INSERT, UPDATE, DELETE '
                   'ON TABLES TO legal_ai_agent, legal_ai_chair', current_schema());
    EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I GRANT USAGE, SELECT '
                   'ON SEQUENCES TO legal_ai_agent, legal_ai_chair', current_schema());
    -- What only the chair changes.
    REVOKE INSERT, UPDATE, DELETE ON methodology_profiles, methodology_profile_versions
        FROM legal_ai_agent;
    -- A lesson: the agent may change only its review columns (and the learning engine's
    -- bookkeeping, once a later migration adds those columns); never its content.
    REVOKE UPDATE ON decision_lessons FROM legal_ai_agent;
    SELECT string_agg(quote_ident(column_name), ', ') INTO columns
    FROM information_schema.columns
    WHERE table_schema = current_schema() AND table_name = 'decision_lessons'
      AND column_name = ANY (ARRAY['review_status', 'reviewed_by', 'reviewed_at', 'review_reason',
                                   'needs_chair', 'panel_models', 'corroboration']);
    EXECUTE format('GRANT UPDATE (%s) ON decision_lessons TO legal_ai_agent', columns);
    REVOKE DELETE ON decision_lessons, case_law_principles FROM legal_ai_agent;
    -- Append-only tables, those that exist (a later migration adds model_calls).
    FOR t IN SELECT unnest(ARRAY['learning_audit', 'style_distance_history', 'item_versions',
                                  'panel_verdicts', 'model_calls'])
    LOOP
        IF to_regclass(t) IS NOT NULL THEN
            EXECUTE format('REVOKE UPDATE, DELETE ON %I FROM legal_ai_agent', t);
        END IF;
    END LOOP;
    RETURN true;
END $grants$;

SELECT apply_role_grants();

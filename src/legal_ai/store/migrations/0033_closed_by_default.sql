-- 0033_closed_by_default: every role's privileges from one explicit list (issue 31 items 1-2).
--
-- Until now apply_role_grants (0010, wrapped by 0014, 0027, 0029) granted every table of the
-- schema to the request roles and took some back, and default privileges opened each new table
-- to them: an agent's login could still write 27 tables (her finals' blocks, the OCR readings
-- waiting in scanned_files, the migrations table, the BM25 statistics, the embedding cache...).
-- This version is an allowlist. Each run (migrate, `db migrate`, restore; migrations.migrate runs it after the last one):
-- * revokes everything the three roles hold on the schema's tables, sequences and functions,
--   and the default privileges that opened new objects to them: a table a later migration adds
--   is closed to every role until this list names it;
-- * grants SELECT on the tables of role_read_tables (every table of this release but the desk's
--   accounts; schema_migrations, which only the owner writes, is read: an agent-only MCP server
--   checks it on opening);
-- * grants each role the writes of the list below, table by table (UPDATE by column where only
--   some columns may change), and USAGE on the sequences of the tables it inserts into;
-- * revokes EXECUTE from PUBLIC on the schema's own functions and grants it to the three roles
--   on those a statement or a gate of theirs calls, never on the grant and pinning functions.
-- The agent's role (and an agent's own login, a member of it) inserts only where its proposals,
-- telemetry and drafts go — each row forced or refused by its gate (lesson_gate, jobs_gate,
-- chair_feedback_record, audit_record, search_log_gate and drafts_agent_gate below) — and
-- updates or deletes nothing. What the server derives from an agent's upload (the case's row,
-- the pair, the copy report, fingerprints, the embedding cache) is written by the server's own
-- login (store/db.Store.as_login, Context.derived_store), never the agent's role.
-- The list is checked by tests/store/test_grants.py against tests/store/data/grants.txt.

-- ---------------------------------------------------------------------------------------------
-- An agent's draft: the case's next version, nothing else (it may not update one).
CREATE FUNCTION drafts_agent_gate() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NOT acting_as_agent() THEN
        RETURN NEW;
    END IF;
    PERFORM pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('legal_ai:draft:' || NEW.case_number));
    IF EXISTS (SELECT 1 FROM draft_final_pairs p
               WHERE p.case_number = NEW.case_number AND p.status <> 'draft_done') THEN
        RAISE EXCEPTION 'case %: its final has arrived; an agent adds no draft to it',
            NEW.case_number USING ERRCODE = 'check_violation';
    END IF;
    NEW.version := coalesce((SELECT max(d.version) FROM drafts d
                             WHERE d.case_number = NEW.case_number), 0) + 1;
    NEW.content_hash := pg_catalog.encode(
        pg_catalog.sha256(pg_catalog.convert_to(NEW.content, 'UTF8')), 'hex');
    NEW.copy_report := NULL;  -- the server's check writes it
    NEW.created_at := now();
    RETURN NEW;
END $$;
CREATE TRIGGER drafts_agent_gate BEFORE INSERT ON drafts
    FOR EACH ROW EXECUTE FUNCTION drafts_agent_gate();

-- The search log: an agent's row is an agent's search (her gold set is made of hers).
CREATE FUNCTION search_log_gate() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF acting_as_agent() AND (NEW.actor_kind <> 'agent' OR NEW.actor NOT LIKE 'agent:%') THEN
        RAISE EXCEPTION 'an agent logs its own searches only (agent:NAME), not %', NEW.actor
            USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.actor_kind = 'chair' AND NOT coalesce(acting_as_chair(), true) THEN
        RAISE EXCEPTION 'a search in the chair''s name is logged under her role only (running as %)',
            current_user USING ERRCODE = 'check_violation';
    END IF;
    IF acting_as_request() THEN  -- a request's row is logged when it is written
        NEW.at := now();
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER search_log_gate BEFORE INSERT ON search_log
    FOR EACH ROW EXECUTE FUNCTION search_log_gate();

-- ---------------------------------------------------------------------------------------------
-- The allowlist. Rows: role, table, privilege, columns (NULL: the whole table). A partitioned
-- table's grant is its partitions' too. A table not named is read-only (role_read_tables) or closed.
CREATE FUNCTION role_write_grants()
RETURNS TABLE (grantee text, table_name text, privilege text, columns text[])
LANGUAGE sql IMMUTABLE AS $list$
    SELECT * FROM (VALUES
    -- An agent (its role, and its own login): proposals, feedback, one ruling's extraction
    -- queued, its searches, its drafts; the audit rows its gates write (audit_record refuses
    -- a row of its own statement).
    ('legal_ai_agent', 'chair_feedback', 'INSERT', NULL::text[]),
    ('legal_ai_agent', 'decision_lessons', 'INSERT', NULL),
    ('legal_ai_agent', 'drafts', 'INSERT', NULL),
    ('legal_ai_agent', 'jobs', 'INSERT', NULL),
    ('legal_ai_agent', 'learning_audit', 'INSERT', NULL),
    ('legal_ai_agent', 'search_log', 'INSERT', NULL),
    -- The chair (a member of the agent's role): what her decisions write — her finals and their
    -- ingest (items, chunks, page images, versions, the BM25 statistics, exemplars, templates,
    -- citations), her reviews of lessons, principles, canonical statements, enrichments and
    -- voice documents, the methodology, her marks and schedules.
    ('legal_ai_chair', 'authorities', 'INSERT', NULL),
    ('legal_ai_chair', 'authorities', 'UPDATE', NULL),
    ('legal_ai_chair', 'block_exemplars', 'INSERT', NULL),
    ('legal_ai_chair', 'block_exemplars', 'UPDATE', NULL),
    ('legal_ai_chair', 'block_exemplars', 'DELETE', NULL),
    ('legal_ai_chair', 'block_templates', 'INSERT', NULL),
    ('legal_ai_chair', 'block_templates', 'DELETE', NULL),
    ('legal_ai_chair', 'canonical_principles', 'INSERT', NULL),
    ('legal_ai_chair', 'canonical_principles', 'UPDATE', NULL),
    ('legal_ai_chair', 'canonical_statement_versions', 'INSERT', NULL),
    ('legal_ai_chair', 'case_law', 'INSERT', NULL),
    ('legal_ai_chair', 'case_law', 'UPDATE', NULL),
    ('legal_ai_chair', 'case_law_chunks', 'INSERT', NULL),
    ('legal_ai_chair', 'case_law_chunks', 'UPDATE', NULL),
    ('legal_ai_chair', 'case_law_chunks', 'DELETE', NULL),
    ('legal_ai_chair', 'case_law_enrichments', 'UPDATE', NULL),
    ('legal_ai_chair', 'case_law_page_images', 'INSERT', NULL),
    ('legal_ai_chair', 'case_law_page_images', 'DELETE', NULL),
    ('legal_ai_chair', 'case_law_principles', 'INSERT', NULL),
    ('legal_ai_chair', 'case_law_principles', 'UPDATE', NULL),
    ('legal_ai_chair', 'case_precedents', 'INSERT', NULL),
    ('legal_ai_chair', 'case_precedents', 'UPDATE', NULL),
    ('legal_ai_chair', 'case_precedents', 'DELETE', NULL),
    ('legal_ai_chair', 'case_status', 'INSERT', NULL),
    ('legal_ai_chair', 'case_status', 'UPDATE', NULL),
    ('legal_ai_chair', 'cases', 'INSERT', NULL),
    ('legal_ai_chair', 'cases', 'UPDATE', NULL),
    ('legal_ai_chair', 'decision_citations', 'INSERT', NULL),
    ('legal_ai_chair', 'decision_citations', 'UPDATE', NULL),
    ('legal_ai_chair', 'decision_citations', 'DELETE', NULL),
    ('legal_ai_chair', 'decision_lessons', 'UPDATE', NULL),
    ('legal_ai_chair', 'document_chunks', 'INSERT', NULL),
    ('legal_ai_chair', 'document_chunks', 'UPDATE', NULL),
    ('legal_ai_chair', 'document_chunks', 'DELETE', NULL),
    ('legal_ai_chair', 'document_page_images', 'INSERT', NULL),
    ('legal_ai_chair', 'document_page_images', 'DELETE', NULL),
    ('legal_ai_chair', 'documents', 'INSERT', NULL),
    ('legal_ai_chair', 'documents', 'UPDATE', NULL),
    ('legal_ai_chair', 'documents', 'DELETE', NULL),
    ('legal_ai_chair', 'draft_final_pairs', 'INSERT', NULL),
    ('legal_ai_chair', 'draft_final_pairs', 'UPDATE', NULL),
    ('legal_ai_chair', 'item_versions', 'INSERT', NULL),
    ('legal_ai_chair', 'jobs', 'UPDATE', NULL),
    ('legal_ai_chair', 'lexicon', 'INSERT', NULL),
    ('legal_ai_chair', 'lexicon', 'UPDATE', NULL),
    ('legal_ai_chair', 'lexicon', 'DELETE', NULL),
    ('legal_ai_chair', 'lexicon_size', 'INSERT', NULL),
    ('legal_ai_chair', 'lexicon_size', 'UPDATE', NULL),
    ('legal_ai_chair', 'library_rekeys', 'UPDATE', NULL),
    ('legal_ai_chair', 'methodology_profile_versions', 'INSERT', NULL),
    ('legal_ai_chair', 'methodology_profiles', 'UPDATE', NULL),
    ('legal_ai_chair', 'missing_precedents', 'INSERT', NULL),
    ('legal_ai_chair', 'missing_precedents', 'UPDATE', NULL),
    ('legal_ai_chair', 'schedules', 'INSERT', NULL),
    ('legal_ai_chair', 'schedules', 'UPDATE', NULL),
    ('legal_ai_chair', 'search_marks', 'INSERT', NULL),
    ('legal_ai_chair', 'search_marks', 'DELETE', NULL),  -- a mark she takes back
    ('legal_ai_chair', 'style_distance_history', 'INSERT', NULL),
    ('legal_ai_chair', 'template_state', 'INSERT', NULL),
    ('legal_ai_chair', 'template_state', 'UPDATE', NULL),
    ('legal_ai_chair', 'voice_documents', 'INSERT', NULL),
    ('legal_ai_chair', 'voice_documents', 'UPDATE', NULL),
    -- The worker: what the system's stages own (the library's arrivals and upkeep, OCR, the
    -- learning engine, panels, synthesis, voice, enrichment, the scheduler, telemetry pruning).
    -- Not the methodology, not the vocabularies, not the desk, not schema_migrations.
    ('legal_ai_worker', 'authorities', 'INSERT', NULL),
    ('legal_ai_worker', 'authorities', 'UPDATE', NULL),
    ('legal_ai_worker', 'block_exemplars', 'INSERT', NULL),
    ('legal_ai_worker', 'block_exemplars', 'UPDATE', NULL),
    ('legal_ai_worker', 'block_exemplars', 'DELETE', NULL),
    ('legal_ai_worker', 'block_templates', 'INSERT', NULL),
    ('legal_ai_worker', 'block_templates', 'DELETE', NULL),
    ('legal_ai_worker', 'canonical_principles', 'INSERT', NULL),
    ('legal_ai_worker', 'canonical_principles', 'UPDATE', NULL),
    ('legal_ai_worker', 'canonical_statement_versions', 'INSERT', NULL),
    ('legal_ai_worker', 'case_law', 'INSERT', NULL),
    ('legal_ai_worker', 'case_law', 'UPDATE', NULL),
    ('legal_ai_worker', 'case_law_chunks', 'INSERT', NULL),
    ('legal_ai_worker', 'case_law_chunks', 'UPDATE', NULL),
    ('legal_ai_worker', 'case_law_chunks', 'DELETE', NULL),
    ('legal_ai_worker', 'case_law_enrichments', 'INSERT', NULL),
    ('legal_ai_worker', 'case_law_enrichments', 'UPDATE', NULL),
    ('legal_ai_worker', 'case_law_page_images', 'INSERT', NULL),
    ('legal_ai_worker', 'case_law_page_images', 'DELETE', NULL),
    ('legal_ai_worker', 'case_law_principles', 'INSERT', NULL),
    ('legal_ai_worker', 'case_law_principles', 'UPDATE', NULL),
    ('legal_ai_worker', 'case_status', 'INSERT', NULL),
    ('legal_ai_worker', 'case_status', 'UPDATE', NULL),
    ('legal_ai_worker', 'cases', 'INSERT', NULL),
    ('legal_ai_worker', 'cases', 'UPDATE', NULL),
    ('legal_ai_worker', 'copy_fingerprints', 'INSERT', NULL),
    ('legal_ai_worker', 'copy_fingerprints', 'UPDATE', NULL),
    ('legal_ai_worker', 'copy_fingerprints', 'DELETE', NULL),
    ('legal_ai_worker', 'decision_citations', 'INSERT', NULL),
    ('legal_ai_worker', 'decision_citations', 'UPDATE', NULL),
    ('legal_ai_worker', 'decision_citations', 'DELETE', NULL),
    ('legal_ai_worker', 'decision_lessons', 'INSERT', NULL),
    ('legal_ai_worker', 'decision_lessons', 'UPDATE',
        ARRAY['review_status', 'reviewed_by', 'reviewed_at', 'review_reason', 'needs_chair',
              'panel_models', 'corroboration', 'folded_into']),
    ('legal_ai_worker', 'digest_chunks', 'INSERT', NULL),
    ('legal_ai_worker', 'digest_chunks', 'DELETE', NULL),
    ('legal_ai_worker', 'digests', 'INSERT', NULL),
    ('legal_ai_worker', 'digests', 'UPDATE', NULL),
    ('legal_ai_worker', 'document_chunks', 'INSERT', NULL),
    ('legal_ai_worker', 'document_chunks', 'UPDATE', NULL),
    ('legal_ai_worker', 'document_chunks', 'DELETE', NULL),
    ('legal_ai_worker', 'document_page_images', 'INSERT', NULL),
    ('legal_ai_worker', 'document_page_images', 'DELETE', NULL),
    ('legal_ai_worker', 'documents', 'INSERT', NULL),
    ('legal_ai_worker', 'documents', 'UPDATE', NULL),
    ('legal_ai_worker', 'draft_final_pairs', 'UPDATE', NULL),
    ('legal_ai_worker', 'eval_history', 'INSERT', NULL),
    ('legal_ai_worker', 'eval_history', 'UPDATE', NULL),  -- a second run that day replaces it
    ('legal_ai_worker', 'item_versions', 'INSERT', NULL),
    ('legal_ai_worker', 'jobs', 'INSERT', NULL),
    ('legal_ai_worker', 'jobs', 'UPDATE', NULL),
    ('legal_ai_worker', 'jobs', 'DELETE', NULL),
    ('legal_ai_worker', 'learning_audit', 'INSERT', NULL),
    ('legal_ai_worker', 'lexicon', 'INSERT', NULL),
    ('legal_ai_worker', 'lexicon', 'UPDATE', NULL),
    ('legal_ai_worker', 'lexicon', 'DELETE', NULL),
    ('legal_ai_worker', 'lexicon_size', 'INSERT', NULL),
    ('legal_ai_worker', 'lexicon_size', 'UPDATE', NULL),
    ('legal_ai_worker', 'library_rekeys', 'UPDATE', NULL),
    ('legal_ai_worker', 'missing_precedents', 'INSERT', NULL),
    ('legal_ai_worker', 'missing_precedents', 'UPDATE', NULL),
    ('legal_ai_worker', 'model_calls', 'INSERT', NULL),
    ('legal_ai_worker', 'panel_verdicts', 'INSERT', NULL),
    ('legal_ai_worker', 'principle_votes', 'INSERT', NULL),
    ('legal_ai_worker', 'scanned_files', 'INSERT', NULL),
    ('legal_ai_worker', 'scanned_files', 'UPDATE', NULL),
    ('legal_ai_worker', 'schedule_runs', 'INSERT', NULL),
    ('legal_ai_worker', 'schedules', 'INSERT', NULL),
    ('legal_ai_worker', 'schedules', 'UPDATE', NULL),
    ('legal_ai_worker', 'search_log', 'DELETE', NULL),
    ('legal_ai_worker', 'search_marks', 'DELETE', NULL),
    ('legal_ai_worker', 'style_distance_history', 'INSERT', NULL),
    ('legal_ai_worker', 'synthesis_attempts', 'INSERT', NULL),
    ('legal_ai_worker', 'template_state', 'INSERT', NULL),
    ('legal_ai_worker', 'template_state', 'UPDATE', NULL),
    ('legal_ai_worker', 'voice_documents', 'INSERT', NULL),
    ('legal_ai_worker', 'voice_documents', 'UPDATE', NULL)
    ) AS grants (grantee, table_name, privilege, columns)
$list$;

-- What the three roles read: every table of this release but the desk's accounts (the agent's
-- tools read the library, the case files, the learning tables and the telemetry; the MCP server
-- checks schema_migrations on opening). A table a later migration adds is read by no role until
-- that migration names it here (CREATE OR REPLACE of this function).
CREATE FUNCTION role_read_tables() RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
    SELECT ARRAY['authorities', 'block_exemplars', 'block_templates', 'canonical_principles',
                 'canonical_statement_versions', 'case_law', 'case_law_chunks',
                 'case_law_enrichments', 'case_law_page_images', 'case_law_principles',
                 'case_precedents', 'case_status', 'cases', 'chair_feedback', 'copy_fingerprints',
                 'corpus_requirements', 'decision_blocks', 'decision_citations',
                 'decision_lessons', 'digest_chunks', 'digests', 'document_chunks',
                 'document_page_images', 'documents', 'draft_final_pairs', 'drafts',
                 'embedding_cache', 'embedding_config', 'eval_history', 'item_versions', 'jobs',
                 'learning_audit', 'lesson_categories', 'lexicon', 'lexicon_size',
                 'library_rekeys', 'methodology_profile_versions', 'methodology_profiles',
                 'missing_precedents', 'model_calls', 'panel_verdicts', 'principle_votes',
                 'scanned_files', 'schedule_runs', 'schedules', 'schema_migrations', 'search_log',
                 'search_marks', 'style_distance_history', 'synthesis_attempts', 'template_state',
                 'voice_documents']
$$;

-- The functions no role calls: granting, pinning and this list.
CREATE FUNCTION owner_only_function(name text) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
    SELECT name LIKE 'apply\_role\_grants%' OR name IN ('pin_search_paths', 'role_write_grants',
                                                        'role_read_tables', 'lexicon_rebuild',
                                                        'owner_only_function')
$$;

DROP FUNCTION apply_role_grants();
DROP FUNCTION apply_role_grants_0027();
DROP FUNCTION apply_role_grants_0014();
DROP FUNCTION apply_role_grants_0010();

CREATE FUNCTION apply_role_grants() RETURNS boolean
LANGUAGE plpgsql AS $grants$
DECLARE
    here text := current_schema();
    roles text[] := ARRAY['legal_ai_agent', 'legal_ai_chair', 'legal_ai_worker'];
    present text[];
    everyone text;
    g record;
    t record;
    f record;
    s record;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'legal_ai_agent')
       OR NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'legal_ai_chair') THEN
        RETURN false;
    END IF;
    SELECT array_agg(r ORDER BY r) INTO present
    FROM unnest(roles) AS r WHERE EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = r);
    SELECT string_agg(quote_ident(r), ', ') INTO everyone FROM unnest(present) AS r;
    BEGIN
        GRANT legal_ai_agent TO legal_ai_chair;
    EXCEPTION WHEN insufficient_privilege OR invalid_grant_operation THEN
        RAISE NOTICE 'legal-ai: could not grant legal_ai_agent to legal_ai_chair (made by a '
                     'superuser?); grant it there';
    END;
    -- TEMP and CREATE: nobody but the owner (only the database's owner may revoke TEMP).
    BEGIN
        EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC, %s', current_database(),
                       everyone);
    EXCEPTION WHEN insufficient_privilege THEN
        RAISE NOTICE 'legal-ai: only the database''s owner revokes TEMP from PUBLIC; do it there';
    END;
    BEGIN
        EXECUTE format('REVOKE CREATE ON SCHEMA %I FROM PUBLIC', here);
    EXCEPTION WHEN insufficient_privilege THEN
        NULL;
    END;
    EXECUTE format('REVOKE CREATE ON SCHEMA %I FROM %s', here, everyone);
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO %s', here, everyone);

    -- Closed: nothing held on any table, sequence or function; nothing granted by default.
    EXECUTE format('REVOKE ALL ON ALL TABLES IN SCHEMA %I FROM %s', here, everyone);
    EXECUTE format('REVOKE ALL ON ALL SEQUENCES IN SCHEMA %I FROM %s', here, everyone);
    EXECUTE format('REVOKE ALL ON ALL FUNCTIONS IN SCHEMA %I FROM %s', here, everyone);
    EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I REVOKE ALL ON TABLES FROM %s',
                   here, everyone);
    EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I REVOKE ALL ON SEQUENCES FROM %s',
                   here, everyone);
    EXECUTE format('ALTER DEFAULT PRIVILEGES IN SCHEMA %I REVOKE ALL ON FUNCTIONS FROM %s',
                   here, everyone);
    ALTER DEFAULT PRIVILEGES REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;
    FOR t IN
        SELECT c.oid, c.relname FROM pg_catalog.pg_class c
        WHERE c.relnamespace = here::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
    LOOP
        -- Column privileges granted by earlier versions of this list.
        FOR s IN
            SELECT a.attname FROM pg_catalog.pg_attribute a
            WHERE a.attrelid = t.oid AND a.attnum > 0 AND NOT a.attisdropped
              AND a.attacl IS NOT NULL
        LOOP
            EXECUTE format('REVOKE ALL (%I) ON %I FROM %s', s.attname, t.relname, everyone);
        END LOOP;
    END LOOP;

    -- Read: the tables the list names (and their partitions); not the desk's accounts.
    FOR t IN
        SELECT c.relname FROM pg_catalog.pg_class c
        WHERE c.relnamespace = here::regnamespace
          AND (c.relname = ANY (role_read_tables())
               OR c.oid IN (SELECT i.inhrelid FROM pg_catalog.pg_inherits i
                            JOIN pg_catalog.pg_class p ON p.oid = i.inhparent
                            WHERE p.relname = ANY (role_read_tables())
                              AND p.relnamespace = here::regnamespace))
    LOOP
        EXECUTE format('GRANT SELECT ON %I TO %s', t.relname, everyone);
    END LOOP;

    -- Write: the list, on each named table that exists and its partitions.
    FOR g IN SELECT * FROM role_write_grants() WHERE grantee = ANY (present) LOOP
        FOR t IN
            SELECT c.oid, c.relname FROM pg_catalog.pg_class c
            WHERE c.relnamespace = here::regnamespace
              AND (c.relname = g.table_name
                   OR c.oid IN (SELECT i.inhrelid FROM pg_catalog.pg_inherits i
                                JOIN pg_catalog.pg_class p ON p.oid = i.inhparent
                                WHERE p.relname = g.table_name
                                  AND p.relnamespace = here::regnamespace))
        LOOP
            IF g.columns IS NULL THEN
                EXECUTE format('GRANT %s ON %I TO %I', g.privilege, t.relname, g.grantee);
            ELSE
                EXECUTE format('GRANT %s (%s) ON %I TO %I', g.privilege,
                               (SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum)
                                FROM pg_catalog.pg_attribute a
                                WHERE a.attrelid = t.oid AND a.attname = ANY (g.columns)
                                  AND NOT a.attisdropped),
                               t.relname, g.grantee);
            END IF;
            -- The sequences its inserts draw ids from.
            IF g.privilege = 'INSERT' THEN
                FOR s IN
                    SELECT q.relname FROM pg_catalog.pg_depend d
                    JOIN pg_catalog.pg_class q ON q.oid = d.objid AND q.relkind = 'S'
                    WHERE d.refobjid = t.oid AND d.deptype IN ('a', 'i')
                LOOP
                    EXECUTE format('GRANT USAGE ON SEQUENCE %I TO %I', s.relname, g.grantee);
                END LOOP;
            END IF;
        END LOOP;
    END LOOP;

    -- Functions: none to PUBLIC; to the roles, those a statement or a gate of theirs calls (a
    -- trigger's own function needs no EXECUTE), never the owner's.
    FOR f IN
        SELECT p.oid::regprocedure AS signature, p.proname,
               p.prorettype = 'pg_catalog.trigger'::regtype AS is_trigger
        FROM pg_catalog.pg_proc p
        WHERE p.pronamespace = here::regnamespace
          AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend d
                          WHERE d.classid = 'pg_catalog.pg_proc'::regclass AND d.objid = p.oid
                            AND d.deptype = 'e')
    LOOP
        EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', f.signature);
        IF NOT f.is_trigger AND NOT owner_only_function(f.proname) THEN
            EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %s', f.signature, everyone);
        END IF;
    END LOOP;
    RETURN present @> roles;
END $grants$;

-- Pinned here (pin_search_paths, itself pinned to pg_catalog first, finds no function of ours).
DO $pin$
DECLARE
    f text;
BEGIN
    FOREACH f IN ARRAY ARRAY['drafts_agent_gate()', 'search_log_gate()', 'role_write_grants()',
                             'role_read_tables()', 'owner_only_function(text)']
    LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = pg_catalog, %I, pg_temp', f,
                       current_schema());
    END LOOP;
    EXECUTE format('ALTER FUNCTION apply_role_grants() SET search_path = %I, pg_catalog, pg_temp',
                   current_schema());
    -- pin_search_paths names the schema by current_schema(): with pg_catalog first in its own
    -- path it found pg_catalog and pinned nothing since 0027. It reads only pg_catalog's tables,
    -- by schema, and only the owner runs it (`legal-ai db migrate` after every run).
    EXECUTE format('ALTER FUNCTION pin_search_paths() SET search_path = %I, pg_catalog, pg_temp',
                   current_schema());
END $pin$;
SELECT pin_search_paths();
SELECT apply_role_grants();

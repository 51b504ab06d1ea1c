-- The schema of a database migrated from nothing (src/legal_ai/store/migrations/), as
-- pg_dump --schema-only writes it. Generated, not edited: `scripts/schema --write`
-- regenerates it; tests/store/test_schema.py fails when it differs from the migrations.

--
-- PostgreSQL database dump
--

--
-- Name: vector; Type: EXTENSION; Schema: -; Owner: -
--

CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA public;

--
-- Name: EXTENSION vector; Type: COMMENT; Schema: -; Owner: -
--

COMMENT ON EXTENSION vector IS 'vector data type and ivfflat and hnsw access methods';

--
-- Name: acting_as_agent(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.acting_as_agent() RETURNS boolean
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    SELECT current_user = 'legal_ai_agent'
        OR (EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'legal_ai_agent')
            AND pg_catalog.pg_has_role(current_user, 'legal_ai_agent', 'MEMBER')
            AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles r
                            WHERE r.rolname IN ('legal_ai_chair', 'legal_ai_worker')
                              AND pg_catalog.pg_has_role(current_user, r.oid, 'MEMBER')))
$$;

--
-- Name: acting_as_chair(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.acting_as_chair() RETURNS boolean
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    SELECT current_user = 'legal_ai_chair'
           AND EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'legal_ai_chair')
$$;

--
-- Name: acting_as_request(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.acting_as_request() RETURNS boolean
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    SELECT current_user IN ('legal_ai_chair', 'legal_ai_worker') OR acting_as_agent()
$$;

--
-- Name: acting_as_worker(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.acting_as_worker() RETURNS boolean
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    SELECT current_user = 'legal_ai_worker'
           AND EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'legal_ai_worker')
$$;

--
-- Name: active_embedder(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.active_embedder() RETURNS text
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$ SELECT embedder FROM embedding_config $$;

--
-- Name: apply_role_grants(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.apply_role_grants() RETURNS boolean
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_catalog', 'pg_temp'
    AS $$
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
END $$;

--
-- Name: apply_role_grants_owner_only_before_0043(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.apply_role_grants_owner_only_before_0043(name text) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    SELECT name LIKE 'apply\_role\_grants%' OR name IN ('pin_search_paths', 'role_write_grants',
                                                        'role_read_tables', 'lexicon_rebuild',
                                                        'owner_only_function')
$$;

--
-- Name: apply_role_grants_owner_only_before_0052(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.apply_role_grants_owner_only_before_0052(name text) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    SELECT apply_role_grants_owner_only_before_0043(name)
        OR name IN ('lexicon_rebuild_before_0043', 'lexical_postings_rebuild')
$$;

--
-- Name: apply_role_grants_reads_before_0038(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.apply_role_grants_reads_before_0038() RETURNS text[]
    LANGUAGE sql IMMUTABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
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
                 'treatments', 'voice_documents']
$$;

--
-- Name: apply_role_grants_reads_before_0040(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.apply_role_grants_reads_before_0040() RETURNS text[]
    LANGUAGE sql IMMUTABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    SELECT apply_role_grants_reads_before_0038() || ARRAY['cite_reports']
$$;

--
-- Name: apply_role_grants_reads_before_0042(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.apply_role_grants_reads_before_0042() RETURNS text[]
    LANGUAGE sql IMMUTABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    SELECT apply_role_grants_reads_before_0040() || ARRAY['deployment_settings']
$$;

--
-- Name: apply_role_grants_reads_before_0043(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.apply_role_grants_reads_before_0043() RETURNS text[]
    LANGUAGE sql IMMUTABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    SELECT apply_role_grants_reads_before_0042() || ARRAY['feedback_lessons']
$$;

--
-- Name: apply_role_grants_reads_before_0051(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.apply_role_grants_reads_before_0051() RETURNS text[]
    LANGUAGE sql IMMUTABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    SELECT apply_role_grants_reads_before_0043() || ARRAY['lexical_postings']
$$;

--
-- Name: apply_role_grants_writes_before_0038(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.apply_role_grants_writes_before_0038() RETURNS TABLE(grantee text, table_name text, privilege text, columns text[])
    LANGUAGE sql IMMUTABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
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
    ('legal_ai_chair', 'treatments', 'INSERT', NULL),  -- 0037: her final's arrival reads them
    ('legal_ai_chair', 'treatments', 'UPDATE', NULL),  -- and her confirmation (treatments_gate)
    ('legal_ai_chair', 'treatments', 'DELETE', NULL),
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
    ('legal_ai_worker', 'treatments', 'INSERT', NULL),  -- 0037: the arrivals and upkeep
    ('legal_ai_worker', 'treatments', 'UPDATE', NULL),
    ('legal_ai_worker', 'treatments', 'DELETE', NULL),
    ('legal_ai_worker', 'voice_documents', 'INSERT', NULL),
    ('legal_ai_worker', 'voice_documents', 'UPDATE', NULL)
    ) AS grants (grantee, table_name, privilege, columns)
$$;

--
-- Name: apply_role_grants_writes_before_0042(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.apply_role_grants_writes_before_0042() RETURNS TABLE(grantee text, table_name text, privilege text, columns text[])
    LANGUAGE sql IMMUTABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    SELECT * FROM apply_role_grants_writes_before_0038()
$$;

--
-- Name: apply_role_grants_writes_before_0043(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.apply_role_grants_writes_before_0043() RETURNS TABLE(grantee text, table_name text, privilege text, columns text[])
    LANGUAGE sql IMMUTABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    SELECT * FROM apply_role_grants_writes_before_0042()
    UNION ALL
    SELECT 'legal_ai_worker', 'feedback_lessons', 'INSERT', NULL::text[]
$$;

--
-- Name: apply_role_grants_writes_before_0046(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.apply_role_grants_writes_before_0046() RETURNS TABLE(grantee text, table_name text, privilege text, columns text[])
    LANGUAGE sql IMMUTABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    SELECT * FROM apply_role_grants_writes_before_0043()
    UNION ALL
    SELECT * FROM (VALUES
        ('legal_ai_chair', 'lexical_postings', 'INSERT', NULL::text[]),
        ('legal_ai_chair', 'lexical_postings', 'DELETE', NULL::text[]),
        ('legal_ai_worker', 'lexical_postings', 'INSERT', NULL::text[]),
        ('legal_ai_worker', 'lexical_postings', 'DELETE', NULL::text[])) AS v
$$;

--
-- Name: apply_role_grants_writes_before_0049(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.apply_role_grants_writes_before_0049() RETURNS TABLE(grantee text, table_name text, privilege text, columns text[])
    LANGUAGE sql IMMUTABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    SELECT * FROM apply_role_grants_writes_before_0046()
    UNION ALL
    SELECT * FROM (VALUES
        ('legal_ai_chair', 'original_files', 'SELECT', NULL::text[]),
        ('legal_ai_chair', 'draft_originals', 'SELECT', NULL::text[])) AS v
$$;

--
-- Name: apply_role_grants_writes_before_0051(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.apply_role_grants_writes_before_0051() RETURNS TABLE(grantee text, table_name text, privilege text, columns text[])
    LANGUAGE sql IMMUTABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    SELECT * FROM apply_role_grants_writes_before_0049()
    UNION ALL
    SELECT * FROM (VALUES
        ('legal_ai_chair', 'decision_scans', 'SELECT', NULL::text[])) AS v
$$;

--
-- Name: audit_record(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.audit_record() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    NEW.db_role := current_user;
    NEW.at := now();
    IF acting_as_agent() AND pg_catalog.pg_trigger_depth() < 2 THEN
        RAISE EXCEPTION 'the audit is written by the database, not by an agent''s statement'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF NEW.actor = 'chair' AND NOT acting_as_chair() THEN
        RAISE EXCEPTION 'an audit row in the chair''s name is written under her role only '
            '(running as %)', current_user USING ERRCODE = 'check_violation', CONSTRAINT = 'audit_chair_by_chair';
    END IF;
    IF NEW.actor = 'panel' AND NOT acting_as_worker() THEN
        RAISE EXCEPTION 'an audit row in the panel''s name is written under the worker''s role '
            'only (running as %)', current_user USING ERRCODE = 'check_violation', CONSTRAINT = 'audit_panel_by_worker';
    END IF;
    IF acting_as_request() AND NEW.actor = 'operator' THEN
        RAISE EXCEPTION 'an audit row in the operator''s name is not written by a request '
            '(running as %)', current_user USING ERRCODE = 'check_violation', CONSTRAINT = 'audit_operator_not_request';
    END IF;
    IF acting_as_agent() AND NEW.actor NOT LIKE 'agent:%' THEN
        NEW.actor := 'agent:' || NEW.actor;  -- what an agent's action wrote is the agent's
    END IF;
    RETURN NEW;
END $$;

--
-- Name: authority_link_audit(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.authority_link_audit() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    INSERT INTO learning_audit (actor, action, from_status, to_status, details)
    VALUES ('chair', 'citation_linked', OLD.link_basis, NEW.link_basis,
            jsonb_build_object('authority_id', NEW.id, 'ref', NEW.ref,
                               'case_law_id', NEW.case_law_id, 'candidates', OLD.candidates));
    RETURN NEW;
END $$;

--
-- Name: authority_link_gate(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.authority_link_gate() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    IF NEW.case_law_id IS NULL THEN
        NEW.link_basis := NULL;
        RETURN NEW;
    END IF;
    IF (NEW.link_basis = 'chair' OR OLD.link_basis = 'chair')
       AND (NEW.link_basis IS DISTINCT FROM OLD.link_basis
            OR NEW.case_law_id IS DISTINCT FROM OLD.case_law_id)
       AND NOT acting_as_chair() THEN
        RAISE EXCEPTION 'only the chair picks the ruling an ambiguous citation names (running as %)',
            current_user USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END $$;

--
-- Name: block_exemplar_fields(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.block_exemplar_fields() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
DECLARE
    f record;
BEGIN
    SELECT d.case_number, d.practice_area, d.decided_on, d.metadata, d.content,
           c.appeal_type, c.outcome, c.practice_area AS case_area
      INTO f
      FROM documents d LEFT JOIN cases c ON c.case_number = d.case_number
     WHERE d.id = NEW.document_id AND d.corpus = 'style';
    IF NOT FOUND THEN
        RAISE EXCEPTION 'document % is not a final in the style corpus', NEW.document_id
            USING ERRCODE = 'foreign_key_violation';
    END IF;
    NEW.case_number := f.case_number;
    NEW.practice_area := coalesce(f.practice_area, f.case_area);
    NEW.decided_on := f.decided_on;
    NEW.appeal_type := coalesce(f.appeal_type, nullif(btrim(f.metadata->>'appeal_type'), ''));
    NEW.outcome := coalesce(f.outcome, nullif(btrim(f.metadata->>'outcome'), ''));
    IF TG_OP = 'INSERT' OR NEW.text IS DISTINCT FROM OLD.text
       OR NEW.char_start IS DISTINCT FROM OLD.char_start
       OR NEW.char_end IS DISTINCT FROM OLD.char_end THEN
        IF substr(f.content, NEW.char_start + 1, NEW.char_end - NEW.char_start)
           IS DISTINCT FROM NEW.text THEN
            RAISE EXCEPTION 'paragraph [%, %) of document % is not that span of the final''s text',
                NEW.char_start, NEW.char_end, NEW.document_id USING ERRCODE = 'check_violation', CONSTRAINT = 'exemplar_span_of_final';
        END IF;
    END IF;
    RETURN NEW;
END $$;

--
-- Name: block_exemplars_follow_case(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.block_exemplars_follow_case() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    UPDATE block_exemplars e SET case_number = NULL
      FROM documents d
     WHERE d.id = e.document_id AND d.corpus = 'style' AND d.case_number = NEW.case_number;
    RETURN NULL;
END $$;

--
-- Name: block_exemplars_follow_document(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.block_exemplars_follow_document() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    UPDATE block_exemplars SET case_number = NULL WHERE document_id = NEW.id;
    RETURN NULL;
END $$;

--
-- Name: canonical_gate(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.canonical_gate() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
DECLARE
    chair boolean := acting_as_chair();
    synthesis boolean;
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.status <> 'pending_synthesis'
           OR (NEW.reviewed_by, NEW.review_reason, NEW.canonical_statement)
              IS DISTINCT FROM (NULL, NULL, NULL) THEN
            RAISE EXCEPTION 'a canonical principle starts pending synthesis, in its source wording'
                USING ERRCODE = 'check_violation', CONSTRAINT = 'canonical_starts_pending';
        END IF;
        RETURN NEW;
    END IF;
    IF NEW.source_kind IS DISTINCT FROM OLD.source_kind THEN
        RAISE EXCEPTION 'a canonical principle stays in its corpus' USING ERRCODE = 'check_violation', CONSTRAINT = 'canonical_stays_in_corpus';
    END IF;
    synthesis := OLD.status = 'pending_synthesis' AND NEW.status = 'pending_review';
    IF NEW.status IS DISTINCT FROM OLD.status THEN
        IF synthesis THEN
            IF NOT (acting_as_worker() OR chair) THEN
                RAISE EXCEPTION 'canonical principle %: the synthesizer (the worker) writes the '
                    'statement for review (running as %)', OLD.id, current_user
                    USING ERRCODE = 'check_violation', CONSTRAINT = 'canonical_synthesis_by_worker';
            END IF;
        ELSIF NOT chair THEN
            RAISE EXCEPTION 'a canonical principle is substance: only the chair moves it % -> % '
                '(running as %)', OLD.status, NEW.status, current_user
                USING ERRCODE = 'check_violation', CONSTRAINT = 'canonical_chair_moves';
        END IF;
    END IF;
    IF NOT chair AND NOT synthesis
       AND (NEW.canonical_statement, NEW.rule_text) IS DISTINCT FROM
           (OLD.canonical_statement, OLD.rule_text) THEN
        RAISE EXCEPTION 'only the chair edits the statement of canonical principle % (the '
            'synthesizer writes it once, moving it to her review)', OLD.id
            USING ERRCODE = 'check_violation', CONSTRAINT = 'canonical_chair_edits';
    END IF;
    IF (NEW.reviewed_by, NEW.review_reason) IS DISTINCT FROM (OLD.reviewed_by, OLD.review_reason)
       AND (NOT chair OR (OLD.status IN ('approved', 'rejected') AND NEW.status = OLD.status
                          AND NEW.reviewed_by IS DISTINCT FROM OLD.reviewed_by)) THEN
        RAISE EXCEPTION 'canonical principle %: its review is the chair''s, recorded with her '
            'decision', OLD.id USING ERRCODE = 'check_violation', CONSTRAINT = 'canonical_review_recorded';
    END IF;
    IF NEW.status IS DISTINCT FROM OLD.status THEN
        NEW.reviewed_at := CASE WHEN NEW.status IN ('approved', 'rejected') THEN now() END;
    ELSE
        NEW.reviewed_at := OLD.reviewed_at;
    END IF;
    NEW.updated_at := now();
    RETURN NEW;
END $$;

--
-- Name: canonical_record(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.canonical_record() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
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

--
-- Name: canonical_statement_hash(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.canonical_statement_hash() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    NEW.statement_hash := encode(sha256(convert_to(
        coalesce(NEW.canonical_statement, NEW.rule_text), 'UTF8')), 'hex');
    RETURN NEW;
END $$;

--
-- Name: case_files_gate(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.case_files_gate() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    IF acting_as_agent()
       AND ((TG_OP <> 'DELETE' AND NEW.corpus = 'case')
            OR (TG_OP <> 'INSERT' AND OLD.corpus = 'case')) THEN
        RAISE EXCEPTION 'a case file''s documents are the operator''s or the chair''s to add, '
            'not an agent''s (running as %)', current_user
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
END $$;

--
-- Name: case_law_chunk_meta(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.case_law_chunk_meta() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
DECLARE
    meta_weight constant integer := 2;
BEGIN
    NEW.meta_hash := CASE WHEN NEW.ordinal = 0 THEN
        (SELECT c.meta_hash FROM case_law c
         WHERE c.id = NEW.case_law_id AND c.source_kind = NEW.source_kind) END;
    IF TG_OP = 'UPDATE' AND NEW.embedding IS DISTINCT FROM OLD.embedding
       AND NEW.meta_embedded_hash IS NOT DISTINCT FROM OLD.meta_embedded_hash THEN
        NEW.meta_embedded_hash := NULL;
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.analyzer IS DISTINCT FROM OLD.analyzer
       AND NEW.meta_analyzed_hash IS NOT DISTINCT FROM OLD.meta_analyzed_hash THEN
        NEW.meta_analyzed_hash := NULL;  -- analyzed again: its metadata too (reindex)
    END IF;
    IF TG_OP = 'INSERT'
       OR (NEW.analyzed, NEW.meta_analyzed, NEW.meta_analyzed_hash, NEW.meta_hash)
          IS DISTINCT FROM (OLD.analyzed, OLD.meta_analyzed, OLD.meta_analyzed_hash, OLD.meta_hash)
    THEN
        SELECT coalesce(jsonb_object_agg(t.lexeme, t.n), '{}'::jsonb), coalesce(sum(t.n), 0)
        INTO NEW.term_freqs, NEW.token_count
        FROM (SELECT lexeme, sum(n)::integer AS n FROM (
                  SELECT lexeme, array_length(positions, 1) AS n
                  FROM unnest(to_tsvector('simple'::regconfig, NEW.analyzed))
                  UNION ALL
                  SELECT lexeme, meta_weight * array_length(positions, 1)
                  FROM unnest(to_tsvector('simple'::regconfig, NEW.meta_analyzed))
                  WHERE NEW.meta_hash IS NOT NULL AND NEW.meta_analyzed_hash = NEW.meta_hash) f
              GROUP BY lexeme) t;
    END IF;
    RETURN NEW;
END $$;

--
-- Name: case_law_chunk_practice_area(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.case_law_chunk_practice_area() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    NEW.practice_area := (SELECT c.practice_area FROM case_law c WHERE c.id = NEW.case_law_id);
    RETURN NEW;
END $$;

--
-- Name: case_law_enrichment_columns(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.case_law_enrichment_columns() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
DECLARE
    stored record;
BEGIN
    IF TG_OP = 'INSERT' THEN  -- an upsert of a stored ruling (OCR) carries its fields again
        SELECT headnote, summary, tags INTO stored FROM case_law
        WHERE doc_id = NEW.doc_id AND source_kind = NEW.source_kind;
    ELSE
        stored := OLD;
    END IF;
    IF (NULLIF(NEW.headnote, ''), NULLIF(NEW.summary, ''), coalesce(NEW.tags, '{}'))
       IS NOT DISTINCT FROM (NULLIF(stored.headnote, ''), NULLIF(stored.summary, ''),
                             coalesce(stored.tags, '{}')) THEN
        RETURN NEW;
    END IF;
    IF acting_as_agent() OR (acting_as_worker() AND (TG_OP = 'INSERT' OR NOT EXISTS (
        SELECT 1 FROM case_law_enrichments e
        WHERE e.case_law_id = NEW.id AND e.status = 'applied' AND e.created_at = now()
          AND e.content_hash = NEW.content_hash
          AND (NEW.headnote IS NOT DISTINCT FROM stored.headnote OR NEW.headnote = e.headnote)
          AND (NEW.summary IS NOT DISTINCT FROM stored.summary OR NEW.summary = e.summary)
          AND (coalesce(NEW.tags, '{}') = coalesce(stored.tags, '{}') OR NEW.tags = e.tags))))
    THEN
        RAISE EXCEPTION 'a decision''s headnote, summary and tags reach the library only through '
            'the chair, the operator''s ingest or an enrichment the system applied (running as %)',
            current_user USING ERRCODE = 'check_violation', CONSTRAINT = 'enrichment_columns_by_review';
    END IF;
    RETURN NEW;
END $$;

--
-- Name: case_law_meta_changed(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.case_law_meta_changed() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    UPDATE case_law_chunks SET meta_hash = NEW.meta_hash
    WHERE case_law_id = NEW.id AND source_kind = NEW.source_kind AND ordinal = 0
      AND meta_hash IS DISTINCT FROM NEW.meta_hash;
    RETURN NULL;
END $$;

--
-- Name: case_law_practice_area_to_chunks(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.case_law_practice_area_to_chunks() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    UPDATE case_law_chunks SET practice_area = NEW.practice_area
     WHERE case_law_id = NEW.id AND source_kind = NEW.source_kind;
    RETURN NULL;
END $$;

--
-- Name: cases_agent_gate(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.cases_agent_gate() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
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
            USING ERRCODE = 'check_violation', CONSTRAINT = 'case_origin_kept';
    END IF;
    IF NEW.created_role IS DISTINCT FROM OLD.created_role THEN
        RAISE EXCEPTION 'case %: the role that created it is kept', OLD.case_number
            USING ERRCODE = 'check_violation', CONSTRAINT = 'case_creator_role_kept';
    END IF;
    IF agent AND NEW.labels_source IS DISTINCT FROM OLD.labels_source THEN
        RAISE EXCEPTION 'case %: whose labels these are is not an agent''s to say', OLD.case_number
            USING ERRCODE = 'check_violation', CONSTRAINT = 'case_labels_owner_not_agent';
    END IF;
    IF OLD.labels_source IS NOT NULL
       AND (NEW.appeal_type, NEW.outcome, NEW.practice_area)
           IS DISTINCT FROM (OLD.appeal_type, OLD.outcome, OLD.practice_area)
       AND (agent OR (OLD.labels_source = 'final' AND acting_as_request() AND NOT acting_as_chair()))
    THEN
        RAISE EXCEPTION 'case %: the labels of its final are the chair''s (appeal type, outcome, practice area)',
            OLD.case_number USING ERRCODE = 'check_violation', CONSTRAINT = 'case_final_labels_chair';
    END IF;
    RETURN NEW;
END $$;

--
-- Name: chair_feedback_record(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.chair_feedback_record() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        IF acting_as_request() THEN
            RAISE EXCEPTION 'chair feedback is kept as it was written (running as %)', current_user
                USING ERRCODE = 'check_violation', CONSTRAINT = 'feedback_kept';
        END IF;
        NEW.actor := OLD.actor;  -- who wrote it is never rewritten, not even by the owner
        NEW.db_role := OLD.db_role;
        RETURN NEW;
    END IF;
    NEW.db_role := current_user;
    IF (NEW.actor = 'chair') IS DISTINCT FROM acting_as_chair() THEN
        RAISE EXCEPTION 'feedback in the chair''s name is written by her role only, and hers '
            'in no other name (running as %, actor %)', current_user, NEW.actor
            USING ERRCODE = 'check_violation', CONSTRAINT = 'feedback_chair_by_chair';
    END IF;
    IF acting_as_agent() AND NEW.actor NOT LIKE 'agent:%' THEN
        RAISE EXCEPTION 'an agent''s feedback carries the agent''s name (agent:NAME), not %',
            NEW.actor USING ERRCODE = 'check_violation', CONSTRAINT = 'feedback_agent_named';
    END IF;
    RETURN NEW;
END $$;

--
-- Name: chunk_lexical_text(text, text, text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.chunk_lexical_text(analyzed text, meta_analyzed text, meta_analyzed_hash text, meta_hash text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    SELECT CASE WHEN meta_hash IS NOT NULL AND meta_analyzed_hash = meta_hash
                     AND meta_analyzed <> ''
                THEN analyzed || ' ' || meta_analyzed ELSE analyzed END
$$;

--
-- Name: chunks_touch_parents(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.chunks_touch_parents() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
DECLARE
    parents text := CASE TG_OP
        WHEN 'INSERT' THEN format('SELECT %I FROM new_rows', TG_ARGV[1])
        WHEN 'DELETE' THEN format('SELECT %I FROM old_rows', TG_ARGV[1])
        ELSE format('SELECT %I FROM old_rows UNION SELECT %I FROM new_rows', TG_ARGV[1], TG_ARGV[1])
    END;
BEGIN
    EXECUTE format('UPDATE %I SET searchable = searchable WHERE id IN (%s)', TG_ARGV[0], parents);
    RETURN NULL;
END $$;

--
-- Name: cite_report_gate(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.cite_report_gate() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    IF acting_as_request() THEN
        RAISE EXCEPTION 'a cite-check report is the system''s own, written when a draft or a '
            'final is stored or checked; not % may write one', current_user
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    NEW.checked_by := current_user;
    NEW.created_at := now();
    RETURN NEW;
END $$;

--
-- Name: decision_meta_hash(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.decision_meta_hash(meta_text text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    SELECT encode(sha256(convert_to(meta_text, 'UTF8')), 'hex')
$$;

--
-- Name: decision_meta_text(text, text, text[]); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.decision_meta_text(headnote text, summary text, tags text[]) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    SELECT nullif(concat_ws(E'\n', nullif(btrim(headnote), ''), nullif(btrim(summary), ''),
                            nullif(btrim(array_to_string(tags, ', ')), '')), '')
$$;

--
-- Name: document_chunk_practice_area(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.document_chunk_practice_area() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    NEW.practice_area := (SELECT d.practice_area FROM documents d WHERE d.id = NEW.document_id);
    RETURN NEW;
END $$;

--
-- Name: documents_practice_area_to_chunks(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.documents_practice_area_to_chunks() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    UPDATE document_chunks SET practice_area = NEW.practice_area
     WHERE document_id = NEW.id AND corpus = NEW.corpus;
    RETURN NULL;
END $$;

--
-- Name: drafts_agent_gate(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.drafts_agent_gate() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    IF NOT acting_as_agent() THEN
        RETURN NEW;
    END IF;
    PERFORM pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('legal_ai:draft:' || NEW.case_number));
    IF EXISTS (SELECT 1 FROM draft_final_pairs p
               WHERE p.case_number = NEW.case_number AND p.status <> 'draft_done') THEN
        RAISE EXCEPTION 'case %: its final has arrived; an agent adds no draft to it',
            NEW.case_number USING ERRCODE = 'check_violation', CONSTRAINT = 'agent_draft_before_final';
    END IF;
    NEW.version := coalesce((SELECT max(d.version) FROM drafts d
                             WHERE d.case_number = NEW.case_number), 0) + 1;
    NEW.content_hash := pg_catalog.encode(
        pg_catalog.sha256(pg_catalog.convert_to(NEW.content, 'UTF8')), 'hex');
    NEW.copy_report := NULL;  -- the server's check writes it
    NEW.created_at := now();
    RETURN NEW;
END $$;

--
-- Name: embedder_changed(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.embedder_changed() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    UPDATE documents SET searchable = searchable;
    UPDATE case_law SET searchable = searchable;
    UPDATE digests SET searchable = searchable;
    RETURN NULL;
END $$;

--
-- Name: embedding_cache_writer(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.embedding_cache_writer() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    NEW.written_by := current_user;
    NEW.by_system := NOT acting_as_request() OR acting_as_worker();
    NEW.created_at := now();
    RETURN NEW;
END $$;

--
-- Name: enrichment_gate(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.enrichment_gate() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.status = 'applied' THEN
            IF NOT acting_as_worker() THEN
                RAISE EXCEPTION 'an enrichment is applied only by the system''s enricher '
                    '(running as %)', current_user USING ERRCODE = 'check_violation', CONSTRAINT = 'enrichment_applied_by_enricher';
            END IF;
            IF NEW.ungrounded IS NOT NULL OR NEW.reviewed_by IS NOT NULL
               OR NOT enrichment_grounded(NEW) THEN
                RAISE EXCEPTION 'an enrichment applied at once rests on the decision''s current '
                    'text, every sentence on its quote' USING ERRCODE = 'check_violation', CONSTRAINT = 'enrichment_applied_current_text';
            END IF;
        ELSIF NEW.status <> 'pending_review' THEN
            RAISE EXCEPTION 'an enrichment starts pending the chair''s review or applied by the '
                'system' USING ERRCODE = 'check_violation', CONSTRAINT = 'enrichment_starts_pending';
        END IF;
        RETURN NEW;
    END IF;
    IF (NEW.case_law_id, NEW.doc_id, NEW.case_number, NEW.content_hash, NEW.headnote, NEW.summary,
        NEW.sentences, NEW.tags, NEW.model, NEW.job_id, NEW.written_by, NEW.created_at,
        NEW.ungrounded)
       IS DISTINCT FROM
       (OLD.case_law_id, OLD.doc_id, OLD.case_number, OLD.content_hash, OLD.headnote, OLD.summary,
        OLD.sentences, OLD.tags, OLD.model, OLD.job_id, OLD.written_by, OLD.created_at,
        OLD.ungrounded) THEN
        RAISE EXCEPTION 'enrichment %: a proposal is frozen (the chair approves or rejects it)',
            OLD.id USING ERRCODE = 'check_violation', CONSTRAINT = 'enrichment_proposal_frozen';
    END IF;
    IF NEW.status IS DISTINCT FROM OLD.status THEN
        IF NOT ((OLD.status = 'pending_review'
                 AND NEW.status IN ('approved', 'rejected', 'superseded'))
                OR (OLD.status = 'applied' AND NEW.status IN ('reverted', 'edited'))) THEN
            RAISE EXCEPTION 'enrichment %: % -> % is not a move', OLD.id, OLD.status, NEW.status
                USING ERRCODE = 'check_violation', CONSTRAINT = 'enrichment_move';
        END IF;
        IF NEW.status <> 'superseded' THEN
            IF NOT acting_as_chair() THEN
                RAISE EXCEPTION 'an enrichment reaches the library only by the chair: only she '
                    'approves, rejects, reverts or edits it (running as %)', current_user
                    USING ERRCODE = 'check_violation', CONSTRAINT = 'enrichment_chair_decides';
            END IF;
            IF OLD.status = 'applied' AND NEW.previous IS DISTINCT FROM OLD.previous THEN
                RAISE EXCEPTION 'enrichment %: what it replaced is kept as it was', OLD.id
                    USING ERRCODE = 'check_violation', CONSTRAINT = 'enrichment_replaced_kept';
            END IF;
            NEW.reviewed_at := now();
        END IF;
    ELSIF (NEW.reviewed_by, NEW.review_reason, NEW.previous)
          IS DISTINCT FROM (OLD.reviewed_by, OLD.review_reason, OLD.previous) THEN
        RAISE EXCEPTION 'enrichment %: its review is recorded once, with its decision', OLD.id
            USING ERRCODE = 'check_violation', CONSTRAINT = 'enrichment_review_recorded';
    END IF;
    NEW.updated_at := now();
    RETURN NEW;
END $$;

--
-- Name: case_law_enrichments; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.case_law_enrichments (
    id bigint NOT NULL,
    case_law_id bigint NOT NULL,
    doc_id text NOT NULL,
    case_number text,
    content_hash text NOT NULL,
    status text DEFAULT 'pending_review'::text NOT NULL,
    headnote text NOT NULL,
    summary text NOT NULL,
    sentences jsonb NOT NULL,
    tags text[] DEFAULT '{}'::text[] NOT NULL,
    model text NOT NULL,
    job_id bigint,
    written_by text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    reviewed_by text,
    reviewed_at timestamp with time zone,
    review_reason text,
    previous jsonb,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    ungrounded text,
    CONSTRAINT case_law_enrichments_headnote_check CHECK ((btrim(headnote) <> ''::text)),
    CONSTRAINT case_law_enrichments_status_check CHECK ((status = ANY (ARRAY['pending_review'::text, 'approved'::text, 'rejected'::text, 'superseded'::text, 'applied'::text, 'reverted'::text, 'edited'::text]))),
    CONSTRAINT case_law_enrichments_summary_check CHECK ((btrim(summary) <> ''::text))
);

--
-- Name: enrichment_grounded(public.case_law_enrichments); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.enrichment_grounded(e public.case_law_enrichments) RETURNS boolean
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    SELECT EXISTS (SELECT 1 FROM case_law c
                   WHERE c.id = e.case_law_id AND c.source_kind = 'internal_committee'
                     AND c.content_hash = e.content_hash)
       AND jsonb_typeof(e.sentences) = 'array' AND jsonb_array_length(e.sentences) > 0
       AND NOT EXISTS (
           SELECT 1 FROM jsonb_array_elements(e.sentences) s, case_law c
           WHERE c.id = e.case_law_id
             AND substr(c.content, (s->>'char_start')::integer + 1,
                        (s->>'char_end')::integer - (s->>'char_start')::integer)
                 IS DISTINCT FROM s->>'quote')
$$;

--
-- Name: enrichment_record(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.enrichment_record() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
DECLARE
    decided boolean := NEW.status IN ('approved', 'rejected', 'reverted', 'edited');
BEGIN
    IF TG_OP = 'INSERT' OR NEW.status IS DISTINCT FROM OLD.status THEN
        INSERT INTO learning_audit (actor, action, case_number, from_status, to_status, reason,
                                    details)
        VALUES (coalesce(CASE WHEN decided THEN NEW.reviewed_by ELSE NEW.written_by END,
                         current_user),
                'enrichment', NEW.case_number,
                CASE WHEN TG_OP = 'UPDATE' THEN OLD.status END, NEW.status,
                CASE WHEN decided THEN NEW.review_reason ELSE NEW.ungrounded END,
                jsonb_build_object('enrichment_id', NEW.id, 'case_law_id', NEW.case_law_id,
                                   'doc_id', NEW.doc_id, 'model', NEW.model));
    END IF;
    RETURN NULL;
END $$;

--
-- Name: feedback_dated(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.feedback_dated() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    IF acting_as_request() THEN
        NEW.created_at := now();
    END IF;
    RETURN NEW;
END $$;

--
-- Name: feedback_lesson_gate(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.feedback_lesson_gate() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    IF acting_as_agent() OR acting_as_chair() THEN
        RAISE EXCEPTION 'a lesson proposed from the chair''s feedback is the weekly job''s, run '
            'by the system; not % may record one', current_user
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    NEW.proposed_by := current_user;
    NEW.proposed_at := now();
    RETURN NEW;
END $$;

--
-- Name: item_contract(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.item_contract() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
DECLARE
    row_json jsonb := to_jsonb(NEW);
    corpus_key text := coalesce(
        row_json->>'corpus',
        CASE row_json->>'source_kind' WHEN 'external_upload' THEN 'external'
                                      WHEN 'internal_committee' THEN 'internal' END,
        TG_ARGV[2]);
    has_chunk boolean;
    broken boolean;
BEGIN
    NEW.missing := item_missing(row_json, corpus_key);
    EXECUTE format(
        'SELECT coalesce(bool_or(r.resolves AND r.embedded), false),'
        '       coalesce(bool_or(NOT r.resolves), false)'
        '  FROM (SELECT coalesce(substr($2, c.char_start + 1, c.char_end - c.char_start) = c.text'
        '                        AND ($3::integer[] IS NULL'
        '                             OR c.page BETWEEN 1 AND cardinality($3::integer[])), false)'
        '               AS resolves,'
        '               (c.embedding IS NOT NULL AND c.embedder = active_embedder()'
        '                AND c.embedded_hash = c.text_hash) AS embedded'
        '          FROM %I c WHERE c.%I = $1) r',
        TG_ARGV[0], TG_ARGV[1])
    INTO has_chunk, broken USING NEW.id, NEW.content, NEW.page_starts;
    NEW.searchable := cardinality(NEW.missing) = 0 AND has_chunk AND NOT broken;
    RETURN NEW;
END $_$;

--
-- Name: item_missing(jsonb, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.item_missing(item jsonb, corpus text) RETURNS text[]
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    SELECT coalesce(array_agg(r.field ORDER BY r.field), '{}')
           || CASE WHEN item->>'extraction_issue' IS NULL THEN '{}'::text[]
                   ELSE ARRAY['text: ' || (item->>'extraction_issue')] END
    FROM corpus_requirements r
    WHERE r.corpus = item_missing.corpus
      AND r.doc_type = item->>'doc_type'
      AND NOT coalesce(
          CASE WHEN jsonb_typeof(item->r.field) = 'array'
               THEN jsonb_array_length(item->r.field) > 0
               ELSE nullif(btrim(item->>r.field), '') IS NOT NULL END, false)
      AND NOT coalesce(
          CASE WHEN jsonb_typeof(item->'metadata'->r.field) = 'array'
               THEN jsonb_array_length(item->'metadata'->r.field) > 0
               ELSE nullif(btrim(item->'metadata'->>r.field), '') IS NOT NULL END, false)
$$;

--
-- Name: item_version_record(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.item_version_record() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    NEW.recorded_by := current_user;
    NEW.recorded_at := now();
    RETURN NEW;
END $$;

--
-- Name: jobs_agent_fields(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.jobs_agent_fields() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
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

--
-- Name: jobs_gate(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.jobs_gate() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    IF NOT acting_as_agent() THEN
        RETURN NEW;
    END IF;
    IF NEW.kind <> 'principles' OR NEW.status <> 'queued' OR NEW.attempts <> 0
       OR coalesce(NEW.result ->> 'requested_by', '') NOT LIKE 'agent:%'
       OR NOT EXISTS (SELECT 1 FROM case_law c
                      WHERE 'principles:' || c.id || ':' || c.content_hash = NEW.key) THEN
        RAISE EXCEPTION 'an agent queues only the extraction of one stored ruling''s current '
            'text, in its own name' USING ERRCODE = 'check_violation', CONSTRAINT = 'agent_job_extraction_only';
    END IF;
    IF NOT EXISTS (SELECT 1 FROM jobs WHERE key = NEW.key)
       AND (SELECT count(*) FROM jobs WHERE status IN ('queued', 'running', 'waiting')
              AND result ->> 'requested_by' LIKE 'agent:%') >= 100 THEN
        RAISE EXCEPTION 'agents have 100 requests open: ask again when the worker has run them'
            USING ERRCODE = 'check_violation', CONSTRAINT = 'agent_jobs_cap';
    END IF;
    RETURN NEW;
END $$;

--
-- Name: lesson_agent_gate(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.lesson_agent_gate() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
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

--
-- Name: lesson_audit(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.lesson_audit() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
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

--
-- Name: lesson_evidence_gate(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.lesson_evidence_gate() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NOT acting_as_worker() THEN
            NEW.evidence_verified := false;
        END IF;
        RETURN NEW;
    END IF;
    IF NEW.evidence_verified IS DISTINCT FROM OLD.evidence_verified THEN
        RAISE EXCEPTION 'lesson %: whether its evidence rests on her edits is the distiller''s '
            'record, written once', OLD.id USING ERRCODE = 'check_violation', CONSTRAINT = 'lesson_evidence_by_distiller';
    END IF;
    IF NEW.reviewed_by = 'panel' AND NEW.review_status IS DISTINCT FROM OLD.review_status
       AND NOT OLD.evidence_verified THEN
        RAISE EXCEPTION 'lesson %: the panel decides only a lesson whose evidence the system '
            'verified on her edits; this one waits for the chair', OLD.id
            USING ERRCODE = 'check_violation', CONSTRAINT = 'lesson_panel_evidence_unedited';
    END IF;
    RETURN NEW;
END $$;

--
-- Name: lesson_gate(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.lesson_gate() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
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
        RAISE EXCEPTION 'lesson %: who proposed it is kept', OLD.id USING ERRCODE = 'check_violation', CONSTRAINT = 'lesson_proposer_kept';
    END IF;
    IF TG_OP = 'UPDATE' AND OLD.review_status <> 'proposed'
       AND (NEW.category, NEW.text, NEW.source) IS DISTINCT FROM (OLD.category, OLD.text, OLD.source)
    THEN
        RAISE EXCEPTION 'lesson % is %: its category, text and source are frozen',
            OLD.id, OLD.review_status USING ERRCODE = 'check_violation', CONSTRAINT = 'lesson_frozen';
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.review_status IS NOT DISTINCT FROM OLD.review_status THEN
        IF OLD.review_status <> 'proposed'
           AND (NEW.reviewed_by, NEW.reviewed_at, NEW.review_reason, NEW.panel_models)
               IS DISTINCT FROM (OLD.reviewed_by, OLD.reviewed_at, OLD.review_reason, OLD.panel_models)
        THEN
            RAISE EXCEPTION 'lesson % is %: its review is recorded once, with its decision',
                OLD.id, OLD.review_status USING ERRCODE = 'check_violation', CONSTRAINT = 'lesson_review_recorded';
        END IF;
        IF NEW.panel_models IS DISTINCT FROM OLD.panel_models THEN
            RAISE EXCEPTION 'lesson %: the panel''s models are the verdicts'' (computed)', OLD.id
                USING ERRCODE = 'check_violation', CONSTRAINT = 'lesson_panel_models_computed';
        END IF;
        RETURN NEW;
    END IF;
    SELECT kind INTO lesson_kind FROM lesson_categories WHERE category = NEW.category;
    IF TG_OP = 'INSERT' AND NEW.review_status <> 'proposed'
       AND (NEW.reviewed_by IS DISTINCT FROM 'chair' OR NOT chair) THEN
        RAISE EXCEPTION 'a lesson starts proposed (only the chair''s role writes one she decided herself)'
            USING ERRCODE = 'check_violation', CONSTRAINT = 'lesson_starts_proposed';
    END IF;
    IF NEW.review_status <> 'proposed' AND coalesce(btrim(NEW.reviewed_by), '') = '' THEN
        RAISE EXCEPTION 'a review decision must say who made it' USING ERRCODE = 'check_violation', CONSTRAINT = 'lesson_decider_named';
    END IF;
    IF NEW.reviewed_by = 'chair' AND NOT chair THEN
        RAISE EXCEPTION 'a decision in the chair''s name must run as the chair''s role, not as %',
            current_user USING ERRCODE = 'check_violation', CONSTRAINT = 'lesson_chair_role';
    END IF;
    IF NEW.review_status = 'approved' AND lesson_kind = 'substance'
       AND NEW.reviewed_by IS DISTINCT FROM 'chair' THEN
        RAISE EXCEPTION 'substance (%) is approved by the chair only, not by %',
            NEW.category, NEW.reviewed_by USING ERRCODE = 'check_violation', CONSTRAINT = 'lesson_substance_chair';
    END IF;
    IF NEW.review_status IN ('approved', 'rejected')
       AND NEW.reviewed_by NOT IN ('chair', 'panel') THEN
        RAISE EXCEPTION 'only the chair or a 2/2 panel decides a lesson, not %', NEW.reviewed_by
            USING ERRCODE = 'check_violation', CONSTRAINT = 'lesson_chair_decides';
    END IF;
    IF NEW.reviewed_by = 'panel' AND NEW.review_status <> 'proposed' THEN
        IF NOT acting_as_worker() THEN
            RAISE EXCEPTION 'only the system''s panel decides as the panel (running as %)',
                current_user USING ERRCODE = 'check_violation', CONSTRAINT = 'lesson_panel_by_worker';
        END IF;
        IF before IS DISTINCT FROM 'proposed' OR NEW.review_status NOT IN ('approved', 'rejected')
           OR lesson_kind <> 'style' THEN
            RAISE EXCEPTION 'a panel decides proposed style lessons only'
                USING ERRCODE = 'check_violation', CONSTRAINT = 'lesson_panel_style_only';
        END IF;
        IF NEW.source IS DISTINCT FROM 'distillation'
           OR NEW.proposed_role IS DISTINCT FROM 'legal_ai_worker' OR OLD.needs_chair
           OR OLD.reviewed_by IS NOT NULL THEN
            RAISE EXCEPTION 'lesson %: the panel votes only on style lessons the system distilled; '
                'curator findings and proposals wait for the chair', NEW.id
                USING ERRCODE = 'check_violation', CONSTRAINT = 'lesson_panel_distilled_only';
        END IF;
        SELECT count(*) AS n, count(DISTINCT v.model) AS models,
               bool_and(v.vote = 'approve') AS approve, bool_and(v.vote = 'reject') AS reject,
               string_agg(v.model, '+' ORDER BY v.id) AS names
        INTO tally FROM panel_verdicts v
        WHERE v.lesson_id = NEW.id AND v.model_call_id IS NOT NULL;
        IF tally.n <> 2 OR tally.models <> 2 THEN
            RAISE EXCEPTION 'lesson %: a panel decision rests on two verdicts of two models the '
                'system called (% found)', NEW.id, tally.n USING ERRCODE = 'check_violation', CONSTRAINT = 'lesson_panel_two_verdicts';
        END IF;
        outcome := CASE WHEN tally.approve THEN 'approved' WHEN tally.reject THEN 'rejected' END;
        IF outcome IS DISTINCT FROM NEW.review_status THEN
            RAISE EXCEPTION 'lesson %: the verdicts give %, not %', NEW.id,
                coalesce(outcome, 'a split (the chair decides)'), NEW.review_status
                USING ERRCODE = 'check_violation', CONSTRAINT = 'lesson_panel_verdicts_agree';
        END IF;
        NEW.panel_models := 'panel:' || tally.names;
    ELSIF TG_OP = 'UPDATE' AND NEW.panel_models IS DISTINCT FROM OLD.panel_models THEN
        NEW.panel_models := OLD.panel_models;
    END IF;
    IF NEW.review_status = 'vetoed' AND (NEW.reviewed_by IS DISTINCT FROM 'chair'
                                         OR before IS DISTINCT FROM 'approved') THEN
        RAISE EXCEPTION 'only the chair vetoes, and only an approved lesson'
            USING ERRCODE = 'check_violation', CONSTRAINT = 'lesson_veto_chair';
    END IF;
    NEW.reviewed_at := CASE WHEN NEW.review_status = 'proposed' THEN NULL ELSE now() END;
    RETURN NEW;
END $$;

--
-- Name: lesson_reopen_gate(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.lesson_reopen_gate() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    IF NEW.review_status = 'proposed' AND OLD.review_status <> 'proposed'
       AND (NEW.reviewed_by IS DISTINCT FROM 'chair' OR acting_as_chair() IS FALSE) THEN
        RAISE EXCEPTION 'only the chair reopens a decided lesson (% -> proposed)',
            OLD.review_status USING ERRCODE = 'check_violation', CONSTRAINT = 'lesson_reopen_chair';
    END IF;
    RETURN NEW;
END $$;

--
-- Name: lexical_area_df_apply(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.lexical_area_df_apply() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO lexical_area_df AS a (source, term, practice_area, df)
            SELECT source, term, practice_area, count(*) FROM new_rows GROUP BY 1, 2, 3
            ON CONFLICT (source, term, practice_area) DO UPDATE SET df = a.df + EXCLUDED.df;
    ELSIF TG_OP = 'DELETE' THEN
        UPDATE lexical_area_df a SET df = a.df - o.n
            FROM (SELECT source, term, practice_area, count(*) AS n FROM old_rows GROUP BY 1, 2, 3) o
            WHERE a.source = o.source AND a.term = o.term AND a.practice_area = o.practice_area;
    ELSE
        INSERT INTO lexical_area_df AS a (source, term, practice_area, df)
            SELECT source, term, practice_area, sum(d) FROM (
                SELECT source, term, practice_area, 1 AS d FROM new_rows
                UNION ALL SELECT source, term, practice_area, -1 FROM old_rows) c
            GROUP BY 1, 2, 3 HAVING sum(d) <> 0
            ON CONFLICT (source, term, practice_area) DO UPDATE SET df = a.df + EXCLUDED.df;
    END IF;
    IF TG_OP <> 'INSERT' THEN
        DELETE FROM lexical_area_df a
            USING (SELECT DISTINCT source, term, practice_area FROM old_rows) o
            WHERE a.source = o.source AND a.term = o.term AND a.practice_area = o.practice_area
              AND a.df <= 0;
    END IF;
    RETURN NULL;
END $$;

--
-- Name: lexical_postings_apply(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.lexical_postings_apply() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
DECLARE
    part text := TG_ARGV[0];
    -- Where the units take their practice area from: the item table and the column naming it.
    item_table text := CASE TG_TABLE_NAME WHEN 'document_chunks' THEN 'documents'
                            WHEN 'case_law_chunks' THEN 'case_law'
                            WHEN 'case_law_principles' THEN 'case_law'
                            WHEN 'digest_chunks' THEN 'digests' END;
    parent text := CASE item_table WHEN 'documents' THEN 'document_id'
                        WHEN 'case_law' THEN 'case_law_id' WHEN 'digests' THEN 'digest_id' END;
    old_source text := CASE WHEN part = '' THEN quote_literal(TG_TABLE_NAME)
                            ELSE quote_literal(TG_TABLE_NAME || '_') || ' || o.' || quote_ident(part) END;
    new_source text := CASE WHEN part = '' THEN quote_literal(TG_TABLE_NAME)
                            ELSE quote_literal(TG_TABLE_NAME || '_') || ' || n.' || quote_ident(part) END;
    -- The item's practice area ('' for none, for an item gone: its own delete removed them).
    old_area text := CASE WHEN item_table IS NULL THEN quote_literal('')
                          ELSE format('coalesce((SELECT i.practice_area FROM %I i WHERE i.id = o.%I), %L)',
                                      item_table, parent, '') END;
    new_area text := CASE WHEN item_table IS NULL THEN quote_literal('')
                          ELSE format('coalesce((SELECT i.practice_area FROM %I i WHERE i.id = n.%I), %L)',
                                      item_table, parent, '') END;
    -- An update that leaves a unit's statistics, partition and item alone leaves its postings.
    same text := format('n.id = o.id AND n.term_freqs = o.term_freqs'
                        ' AND n.token_count = o.token_count AND %s = %s%s', old_source, new_source,
                        CASE WHEN item_table IS NULL THEN ''
                             ELSE format(' AND n.%1$I = o.%1$I', parent) END);
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        EXECUTE format(
            'DELETE FROM lexical_postings p USING ('
            '  SELECT %s AS source, %s AS area, o.id, w.key AS term'
            '  FROM old_rows o, jsonb_each(o.term_freqs) w WHERE %s) g'
            ' WHERE p.source = g.source AND p.term = g.term AND p.practice_area = g.area'
            ' AND p.unit_id = g.id',
            old_source, old_area,
            CASE WHEN TG_OP = 'UPDATE'
                 THEN format('NOT EXISTS (SELECT 1 FROM new_rows n WHERE %s)', same)
                 ELSE 'true' END);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        EXECUTE format(
            'INSERT INTO lexical_postings (source, term, practice_area, unit_id, tf, token_count)'
            ' SELECT %s, w.key, %s, n.id, (w.value)::integer, n.token_count'
            ' FROM new_rows n, jsonb_each_text(n.term_freqs) w'
            ' WHERE (w.value)::integer > 0 AND %s ORDER BY 1, 2, 3, 4',
            new_source, new_area,
            CASE WHEN TG_OP = 'UPDATE'
                 THEN format('NOT EXISTS (SELECT 1 FROM old_rows o WHERE %s)', same)
                 ELSE 'true' END);
    END IF;
    RETURN NULL;
END $_$;

--
-- Name: lexical_postings_item(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.lexical_postings_item() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $_$
DECLARE
    old_area text := coalesce(OLD.practice_area, '');
    new_area text := CASE WHEN TG_OP = 'UPDATE' THEN coalesce(NEW.practice_area, '') END;
    unit record;
BEGIN
    FOR unit IN SELECT * FROM (VALUES
        ('documents', 'document_chunks', 'document_id', 'corpus'),
        ('case_law', 'case_law_chunks', 'case_law_id', 'source_kind'),
        ('case_law', 'case_law_principles', 'case_law_id', 'source_kind'),
        ('digests', 'digest_chunks', 'digest_id', '')) AS v(item_table, unit_table, parent, part)
        WHERE v.item_table = TG_TABLE_NAME
    LOOP
        EXECUTE format(
            CASE WHEN TG_OP = 'DELETE' THEN 'DELETE FROM lexical_postings p USING %1$I u,'
                 ELSE 'UPDATE lexical_postings p SET practice_area = $2 FROM %1$I u,' END
            || ' jsonb_object_keys(u.term_freqs) w(term)'
               ' WHERE u.%2$I = $1 AND p.source = %3$s AND p.term = w.term'
               ' AND p.practice_area = $3 AND p.unit_id = u.id',
            unit.unit_table, unit.parent,
            CASE WHEN unit.part = '' THEN quote_literal(unit.unit_table)
                 ELSE quote_literal(unit.unit_table || '_') || ' || u.' || quote_ident(unit.part) END)
        USING OLD.id, new_area, old_area;
    END LOOP;
    RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NULL END;
END $_$;

--
-- Name: lexical_postings_rebuild(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.lexical_postings_rebuild() RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    DELETE FROM lexical_area_df;
    DELETE FROM lexical_postings;
    INSERT INTO lexical_postings (source, term, practice_area, unit_id, tf, token_count)
        SELECT 'document_chunks_' || u.corpus, w.key, coalesce(i.practice_area, ''), u.id,
               (w.value)::integer, u.token_count
        FROM document_chunks u LEFT JOIN documents i ON i.id = u.document_id,
             jsonb_each_text(u.term_freqs) w WHERE (w.value)::integer > 0;
    INSERT INTO lexical_postings (source, term, practice_area, unit_id, tf, token_count)
        SELECT 'case_law_chunks_' || u.source_kind, w.key, coalesce(i.practice_area, ''), u.id,
               (w.value)::integer, u.token_count
        FROM case_law_chunks u LEFT JOIN case_law i ON i.id = u.case_law_id,
             jsonb_each_text(u.term_freqs) w WHERE (w.value)::integer > 0;
    INSERT INTO lexical_postings (source, term, practice_area, unit_id, tf, token_count)
        SELECT 'case_law_principles_' || u.source_kind, w.key, coalesce(i.practice_area, ''),
               u.id, (w.value)::integer, u.token_count
        FROM case_law_principles u LEFT JOIN case_law i ON i.id = u.case_law_id,
             jsonb_each_text(u.term_freqs) w WHERE (w.value)::integer > 0;
    INSERT INTO lexical_postings (source, term, practice_area, unit_id, tf, token_count)
        SELECT 'digest_chunks', w.key, coalesce(i.practice_area, ''), u.id, (w.value)::integer,
               u.token_count
        FROM digest_chunks u LEFT JOIN digests i ON i.id = u.digest_id,
             jsonb_each_text(u.term_freqs) w WHERE (w.value)::integer > 0;
    INSERT INTO lexical_postings (source, term, practice_area, unit_id, tf, token_count)
        SELECT 'case_precedents', w.key, '', u.id, (w.value)::integer, u.token_count
        FROM case_precedents u, jsonb_each_text(u.term_freqs) w WHERE (w.value)::integer > 0;
END $$;

--
-- Name: lexicon_apply(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.lexicon_apply() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
DECLARE
    part text := TG_ARGV[0];
    source_expr text := CASE WHEN part = '' THEN quote_literal(TG_TABLE_NAME)
                             ELSE quote_literal(TG_TABLE_NAME || '_') || ' || ' || quote_ident(part) END;
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        EXECUTE format(
            'WITH gone AS (SELECT %s AS source, w AS term, count(*) AS n FROM old_rows,'
            ' unnest(tsvector_to_array(tsv)) w GROUP BY 1, 2 ORDER BY 1, 2)'
            ' UPDATE lexicon l SET df = l.df - g.n FROM gone g'
            ' WHERE l.source = g.source AND l.term = g.term', source_expr);
        EXECUTE format(
            'WITH gone AS (SELECT %s AS source, count(*) AS n, sum(token_count) AS tokens'
            ' FROM old_rows GROUP BY 1)'
            ' UPDATE lexicon_size s SET units = s.units - g.n, tokens = s.tokens - g.tokens'
            ' FROM gone g WHERE s.source = g.source', source_expr);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        EXECUTE format(
            'INSERT INTO lexicon (source, term, df)'
            ' SELECT %s, w, count(*) FROM new_rows, unnest(tsvector_to_array(tsv)) w'
            ' GROUP BY 1, 2 ORDER BY 1, 2'
            ' ON CONFLICT (source, term) DO UPDATE SET df = lexicon.df + EXCLUDED.df', source_expr);
        EXECUTE format(
            'INSERT INTO lexicon_size (source, units, tokens)'
            ' SELECT %s, count(*), sum(token_count) FROM new_rows GROUP BY 1 ORDER BY 1'
            ' ON CONFLICT (source) DO UPDATE SET units = lexicon_size.units + EXCLUDED.units,'
            ' tokens = lexicon_size.tokens + EXCLUDED.tokens', source_expr);
    END IF;
    RETURN NULL;
END $$;

--
-- Name: lexicon_rebuild(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.lexicon_rebuild() RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    PERFORM lexicon_rebuild_before_0043();
    PERFORM lexical_postings_rebuild();
END $$;

--
-- Name: lexicon_rebuild_before_0043(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.lexicon_rebuild_before_0043() RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    DELETE FROM lexicon;
    DELETE FROM lexicon_size;
    INSERT INTO lexicon SELECT 'document_chunks_' || corpus, w, count(*) FROM document_chunks,
        unnest(tsvector_to_array(tsv)) w GROUP BY 1, 2;
    INSERT INTO lexicon SELECT 'case_law_chunks_' || source_kind, w, count(*) FROM case_law_chunks,
        unnest(tsvector_to_array(tsv)) w GROUP BY 1, 2;
    INSERT INTO lexicon SELECT 'case_law_principles_' || source_kind, w, count(*)
        FROM case_law_principles, unnest(tsvector_to_array(tsv)) w GROUP BY 1, 2;
    INSERT INTO lexicon SELECT 'digest_chunks', w, count(*) FROM digest_chunks,
        unnest(tsvector_to_array(tsv)) w GROUP BY 1, 2;
    INSERT INTO lexicon SELECT 'case_precedents', w, count(*) FROM case_precedents,
        unnest(tsvector_to_array(tsv)) w GROUP BY 1, 2;
    INSERT INTO lexicon_size SELECT 'document_chunks_' || corpus, count(*), sum(token_count)
        FROM document_chunks GROUP BY 1;
    INSERT INTO lexicon_size SELECT 'case_law_chunks_' || source_kind, count(*), sum(token_count)
        FROM case_law_chunks GROUP BY 1;
    INSERT INTO lexicon_size SELECT 'case_law_principles_' || source_kind, count(*),
        sum(token_count) FROM case_law_principles GROUP BY 1;
    INSERT INTO lexicon_size SELECT 'digest_chunks', count(*), coalesce(sum(token_count), 0)
        FROM digest_chunks;
    INSERT INTO lexicon_size SELECT 'case_precedents', count(*), coalesce(sum(token_count), 0)
        FROM case_precedents;
END $$;

--
-- Name: model_call_record(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.model_call_record() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    NEW.db_role := current_user;
    NEW.at := now();
    RETURN NEW;
END $$;

--
-- Name: owner_only_function(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.owner_only_function(name text) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    SELECT apply_role_grants_owner_only_before_0052(name) OR name = 'practice_area_indexes'
$$;

--
-- Name: pair_status_forward(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pair_status_forward() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.status NOT IN ('draft_done', 'final_received') THEN
            RAISE EXCEPTION 'a pair starts at draft_done or final_received, not %', NEW.status
                USING ERRCODE = 'check_violation', CONSTRAINT = 'pair_starts';
        END IF;
    ELSIF NEW.status IS DISTINCT FROM OLD.status THEN
        IF pair_status_rank(NEW.status) <> pair_status_rank(OLD.status) + 1 THEN
            RAISE EXCEPTION 'pair of % cannot move from % to % (only forward, one step at a time)',
                OLD.case_number, OLD.status, NEW.status USING ERRCODE = 'check_violation', CONSTRAINT = 'pair_forward';
        END IF;
        NEW.status_changed_at := now();
    END IF;
    RETURN NEW;
END $$;

--
-- Name: pair_status_rank(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pair_status_rank(status text) RETURNS integer
    LANGUAGE sql IMMUTABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    SELECT array_position(ARRAY['draft_done', 'final_received', 'analyzed', 'lessons_folded'], status)
$$;

--
-- Name: panel_verdict_gate(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.panel_verdict_gate() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
DECLARE
    lesson record;
    call record;
BEGIN
    IF NOT acting_as_worker() THEN
        RAISE EXCEPTION 'a panel verdict is the system''s own: only the worker''s panel writes '
            'one (running as %)', current_user USING ERRCODE = 'check_violation', CONSTRAINT = 'verdict_by_worker';
    END IF;
    SELECT id, created_at, job_id INTO lesson FROM decision_lessons WHERE id = NEW.lesson_id;
    SELECT at, job_id INTO call FROM model_calls WHERE id = NEW.model_call_id;
    IF NEW.model_call_id IS NULL OR NOT system_call(NEW.model_call_id, 'panel', NEW.model)
       OR call.at < lesson.created_at
       OR (lesson.job_id IS NOT NULL AND call.job_id IS DISTINCT FROM lesson.job_id) THEN
        RAISE EXCEPTION 'a panel verdict names the call the system made to % for this lesson '
            '(in its job)', NEW.model USING ERRCODE = 'check_violation', CONSTRAINT = 'verdict_names_call';
    END IF;
    NEW.created_at := now();
    RETURN NEW;
END $$;

--
-- Name: pin_search_paths(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.pin_search_paths() RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_catalog', 'pg_temp'
    AS $$
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
END $$;

--
-- Name: practice_area_indexes(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.practice_area_indexes() RETURNS integer
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
DECLARE
    part text;
    wanted jsonb;
    a record;
    name text;
    made integer := 0;
BEGIN
    FOREACH part IN ARRAY ARRAY['document_chunks_style', 'document_chunks_case',
                                'case_law_chunks_external', 'case_law_chunks_internal'] LOOP
        -- Read whole before any index is made (no scan of the partition may stay open).
        EXECUTE format(
            'SELECT coalesce(jsonb_agg(s ORDER BY embedder, area), ''[]'') FROM ('
            '  SELECT embedder, practice_area AS area, max(vector_dims(embedding)) AS dim,'
            '         count(*) AS n, sum(count(*)) OVER (PARTITION BY embedder) AS total'
            '  FROM %I WHERE embedding IS NOT NULL AND embedder IS NOT NULL'
            '  GROUP BY embedder, practice_area) s'
            ' WHERE area IS NOT NULL AND n * 2 <= total', part) INTO wanted;
        FOR a IN SELECT * FROM jsonb_to_recordset(wanted) AS x(embedder text, area text, dim int)
        LOOP
            -- A stable name of at most 63 bytes, whatever the area's and embedder's spelling.
            name := part || '_area_' || left(md5(a.embedder || '/' || a.area), 12);
            CONTINUE WHEN to_regclass(quote_ident(name)) IS NOT NULL;
            EXECUTE format('CREATE INDEX %I ON %I USING hnsw ((embedding::vector(%s))'
                           ' vector_cosine_ops) WHERE embedder = %L AND practice_area = %L',
                           name, part, a.dim, a.embedder, a.area);
            made := made + 1;
        END LOOP;
    END LOOP;
    RETURN made;
END $$;

--
-- Name: principle_audit(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.principle_audit() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
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

--
-- Name: principle_cap_check(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.principle_cap_check() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
DECLARE
    cap integer;
    taken integer;
BEGIN
    IF coalesce(acting_as_chair(), false) THEN
        RETURN NULL;
    END IF;
    PERFORM pg_catalog.pg_advisory_xact_lock(
        pg_catalog.hashtext('legal_ai:principle_cap:' || NEW.source_kind || ':' || NEW.case_law_id));
    -- the row as it stands at commit: a principle the panel rejected since takes no place
    IF NOT EXISTS (SELECT 1 FROM case_law_principles p
                   WHERE p.id = NEW.id AND p.source_kind = NEW.source_kind
                     AND p.case_law_id = NEW.case_law_id AND p.cap_counted
                     AND p.review_status NOT IN ('rejected', 'vetoed')) THEN
        RETURN NULL;
    END IF;
    cap := principle_cap_value();
    SELECT count(*) INTO taken FROM case_law_principles p
    WHERE p.case_law_id = NEW.case_law_id AND p.source_kind = NEW.source_kind
      AND p.cap_counted AND p.review_status NOT IN ('rejected', 'vetoed');
    IF taken > cap THEN
        RAISE EXCEPTION 'principle cap: decision % would have % new principles over all its versions (the cap is %, HALACHA_PANEL_MAX_NEW as recorded)',
            NEW.case_law_id, taken, cap
            USING ERRCODE = 'check_violation', CONSTRAINT = 'principle_cap';
    END IF;
    RETURN NULL;
END $$;

--
-- Name: principle_cap_mark(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.principle_cap_mark() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        NEW.cap_counted := OLD.cap_counted;  -- fixed when written
        RETURN NEW;
    END IF;
    NEW.cap_counted := NOT coalesce(acting_as_chair(), false)
        AND NOT (NEW.canonical_id IS NOT NULL AND EXISTS (
            SELECT 1 FROM case_law_principles p
            WHERE p.canonical_id = NEW.canonical_id AND p.source_kind = NEW.source_kind));
    RETURN NEW;
END $$;

--
-- Name: principle_cap_value(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.principle_cap_value() RETURNS integer
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    SELECT coalesce((SELECT s.value FROM deployment_settings s
                     WHERE s.name = 'halacha_panel_max_new'), 5)
$$;

--
-- Name: principle_for_writer(text, text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.principle_for_writer(status text, reviewed_by text, confirmed_by text) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    SELECT status = 'approved' AND (reviewed_by = 'chair' OR confirmed_by = 'chair')
$$;

--
-- Name: principle_gate(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.principle_gate() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
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
            OLD.id, OLD.review_status USING ERRCODE = 'check_violation', CONSTRAINT = 'principle_frozen';
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
            USING ERRCODE = 'check_violation', CONSTRAINT = 'principle_confirm_after_panel';
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.confirmed_by IS DISTINCT FROM OLD.confirmed_by THEN
        IF NOT chair OR NEW.confirmed_by IS DISTINCT FROM 'chair' OR OLD.confirmed_by IS NOT NULL
           OR OLD.review_status <> 'approved' OR NEW.review_status <> 'approved'
           OR OLD.reviewed_by IS DISTINCT FROM 'panel' THEN
            RAISE EXCEPTION 'principle %: only the chair confirms what the panel approved (once)',
                OLD.id USING ERRCODE = 'check_violation', CONSTRAINT = 'principle_confirm_chair';
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
                'as %)', current_user USING ERRCODE = 'check_violation', CONSTRAINT = 'principle_panel_by_worker';
        END IF;
        IF TG_OP = 'INSERT' OR before <> 'proposed' OR OLD.reviewed_by IS NOT NULL THEN
            RAISE EXCEPTION 'the panel decides a proposed principle nobody decided before, on '
                'its recorded votes' USING ERRCODE = 'check_violation', CONSTRAINT = 'principle_panel_fresh';
        END IF;
        IF tally.n < 3 THEN
            RAISE EXCEPTION 'principle %: a panel decision rests on the votes of the three models '
                'the system called (% found)', NEW.id, tally.n USING ERRCODE = 'check_violation', CONSTRAINT = 'principle_panel_three_votes';
        END IF;
        outcome := principle_panel_outcome(NEW.votes, NEW.score);
        IF NEW.review_status IS DISTINCT FROM outcome OR outcome = 'proposed' THEN
            RAISE EXCEPTION 'the panel''s rule gives % for % votes and score %, not %', outcome,
                NEW.votes, NEW.score, NEW.review_status USING ERRCODE = 'check_violation', CONSTRAINT = 'principle_panel_rule';
        END IF;
        NEW.reviewed_at := now();
        RETURN NEW;
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.review_status IS NOT DISTINCT FROM OLD.review_status THEN
        IF OLD.review_status <> 'proposed'
           AND (NEW.reviewed_by, NEW.reviewed_at, NEW.review_reason)
               IS DISTINCT FROM (OLD.reviewed_by, OLD.reviewed_at, OLD.review_reason) THEN
            RAISE EXCEPTION 'principle % is %: its review is recorded once, with its decision',
                OLD.id, OLD.review_status USING ERRCODE = 'check_violation', CONSTRAINT = 'principle_review_recorded';
        END IF;
        RETURN NEW;
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.review_status = 'proposed' AND NOT chair THEN
        RAISE EXCEPTION 'principle % is %: only the chair reopens it for review', OLD.id, before
            USING ERRCODE = 'check_violation', CONSTRAINT = 'principle_reopen_review_chair';
    END IF;
    IF NEW.review_status <> 'proposed' THEN
        IF NEW.reviewed_by IS DISTINCT FROM 'chair' OR NOT chair THEN
            RAISE EXCEPTION 'a principle is substance: only the chair approves, rejects or vetoes '
                'it (not %, running as %)', coalesce(NEW.reviewed_by, 'an unnamed writer'),
                current_user USING ERRCODE = 'check_violation', CONSTRAINT = 'principle_chair_decides';
        END IF;
        IF NEW.review_status = 'vetoed' AND before IS DISTINCT FROM 'approved' THEN
            RAISE EXCEPTION 'only an approved principle is vetoed' USING ERRCODE = 'check_violation', CONSTRAINT = 'principle_veto_approved';
        END IF;
    END IF;
    IF NEW.review_status <> 'approved' THEN
        NEW.confirmed_by := NULL;
        NEW.confirmed_at := NULL;
    END IF;
    NEW.reviewed_at := CASE WHEN NEW.review_status = 'proposed' THEN NULL ELSE now() END;
    RETURN NEW;
END $$;

--
-- Name: principle_panel_outcome(integer, double precision); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.principle_panel_outcome(votes integer, score double precision) RETURNS text
    LANGUAGE sql IMMUTABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    SELECT CASE
        WHEN votes IS NULL THEN NULL
        WHEN votes >= 3 THEN 'approved'
        WHEN votes = 2 AND score >= 0.85 THEN 'approved'  -- = HALACHA_PANEL_APPROVE_SCORE default
        WHEN votes = 2 THEN 'proposed'
        ELSE 'rejected'
    END
$$;

--
-- Name: principle_reopen_gate(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.principle_reopen_gate() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    IF NEW.review_status = 'proposed' AND OLD.review_status <> 'proposed'
       AND (NEW.reviewed_by IS DISTINCT FROM 'chair' OR acting_as_chair() IS FALSE) THEN
        RAISE EXCEPTION 'only the chair reopens a decided principle (% -> proposed)',
            OLD.review_status USING ERRCODE = 'check_violation', CONSTRAINT = 'principle_reopen_chair';
    END IF;
    RETURN NEW;
END $$;

--
-- Name: principle_span(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.principle_span() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    IF NEW.span_hash IS NULL THEN
        NEW.span_hash := encode(sha256(convert_to(NEW.supporting_quote, 'UTF8')), 'hex');
    END IF;
    IF TG_OP = 'INSERT' THEN
        IF NEW.returned_at IS NOT NULL THEN
            RAISE EXCEPTION 'a principle is returned to the chair after it was drawn, not when'
                USING ERRCODE = 'check_violation', CONSTRAINT = 'principle_returned_after_drawn';
        END IF;
        RETURN NEW;
    END IF;
    IF NEW.review_status IS DISTINCT FROM OLD.review_status THEN
        NEW.returned_reason := NULL;  -- her decision, through the gate, answers the return
        NEW.returned_at := NULL;
    ELSIF OLD.returned_at IS NOT NULL
          AND (NEW.returned_reason, NEW.returned_at)
              IS DISTINCT FROM (OLD.returned_reason, OLD.returned_at) THEN
        RAISE EXCEPTION 'principle % was returned to the chair: only her decision takes it back',
            OLD.id USING ERRCODE = 'check_violation', CONSTRAINT = 'principle_returned_chair_takes_back';
    ELSIF NEW.returned_at IS NOT NULL AND OLD.returned_at IS NULL THEN
        NEW.returned_at := now();
    END IF;
    RETURN NEW;
END $$;

--
-- Name: principle_vote_gate(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.principle_vote_gate() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
DECLARE
    principle record;
    call record;
BEGIN
    IF NOT acting_as_worker() THEN
        RAISE EXCEPTION 'a principle vote is the system''s own: only the worker''s panel writes '
            'one (running as %)', current_user USING ERRCODE = 'check_violation', CONSTRAINT = 'vote_by_worker';
    END IF;
    SELECT created_at, job_id INTO principle FROM case_law_principles
    WHERE id = NEW.principle_id AND source_kind = NEW.source_kind;
    SELECT at, job_id INTO call FROM model_calls WHERE id = NEW.model_call_id;
    IF principle.created_at IS NULL
       OR NOT system_call(NEW.model_call_id, 'principle_panel', NEW.model)
       OR call.at > principle.created_at
       OR (principle.job_id IS NOT NULL AND call.job_id IS DISTINCT FROM principle.job_id) THEN
        RAISE EXCEPTION 'a principle vote names the extraction call the system made to % for '
            'that principle''s ruling', NEW.model USING ERRCODE = 'check_violation', CONSTRAINT = 'vote_names_call';
    END IF;
    NEW.created_at := now();
    RETURN NEW;
END $$;

--
-- Name: proposal_cap(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.proposal_cap() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
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

--
-- Name: record_item_version(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.record_item_version() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
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

--
-- Name: refuse_change(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.refuse_change() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    RAISE EXCEPTION '% is append-only: % is refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'insufficient_privilege';
END $$;

--
-- Name: refuse_truncate(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.refuse_truncate() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    RAISE EXCEPTION '% is append-only: TRUNCATE is refused', TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END $$;

--
-- Name: role_read_tables(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.role_read_tables() RETURNS text[]
    LANGUAGE sql IMMUTABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    SELECT apply_role_grants_reads_before_0051() || ARRAY['lexical_area_df']
$$;

--
-- Name: role_write_grants(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.role_write_grants() RETURNS TABLE(grantee text, table_name text, privilege text, columns text[])
    LANGUAGE sql IMMUTABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    SELECT * FROM apply_role_grants_writes_before_0051()
    UNION ALL
    SELECT * FROM (VALUES
        ('legal_ai_chair', 'lexical_postings', 'UPDATE', ARRAY['practice_area']),
        ('legal_ai_worker', 'lexical_postings', 'UPDATE', ARRAY['practice_area']),
        ('legal_ai_chair', 'lexical_area_df', 'INSERT', NULL::text[]),
        ('legal_ai_chair', 'lexical_area_df', 'UPDATE', NULL::text[]),
        ('legal_ai_chair', 'lexical_area_df', 'DELETE', NULL::text[]),
        ('legal_ai_worker', 'lexical_area_df', 'INSERT', NULL::text[]),
        ('legal_ai_worker', 'lexical_area_df', 'UPDATE', NULL::text[]),
        ('legal_ai_worker', 'lexical_area_df', 'DELETE', NULL::text[])) AS v
$$;

--
-- Name: row_id_by_database(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.row_id_by_database() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
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

--
-- Name: ruling_corroboration(bigint); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.ruling_corroboration(ruling bigint) RETURNS integer
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    SELECT coalesce(sum(corroboration), 0)::integer FROM authorities WHERE case_law_id = ruling
$$;

--
-- Name: search_log_gate(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.search_log_gate() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    IF acting_as_agent() AND (NEW.actor_kind <> 'agent' OR NEW.actor NOT LIKE 'agent:%') THEN
        RAISE EXCEPTION 'an agent logs its own searches only (agent:NAME), not %', NEW.actor
            USING ERRCODE = 'check_violation', CONSTRAINT = 'search_log_agent_own';
    END IF;
    IF NEW.actor_kind = 'chair' AND NOT coalesce(acting_as_chair(), true) THEN
        RAISE EXCEPTION 'a search in the chair''s name is logged under her role only (running as %)',
            current_user USING ERRCODE = 'check_violation', CONSTRAINT = 'search_log_chair_role';
    END IF;
    IF acting_as_request() THEN  -- a request's row is logged when it is written
        NEW.at := now();
    END IF;
    RETURN NEW;
END $$;

--
-- Name: search_mark_gate(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.search_mark_gate() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    IF NOT coalesce(acting_as_chair(), NEW.actor = 'chair') THEN
        RAISE EXCEPTION 'only the chair marks search results (running as %)', current_user
            USING ERRCODE = 'check_violation', CONSTRAINT = 'search_mark_chair';
    END IF;
    RETURN NEW;
END $$;

--
-- Name: style_documents_gate(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.style_documents_gate() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    IF acting_as_agent()
       AND ((TG_OP <> 'DELETE' AND NEW.corpus = 'style')
            OR (TG_OP <> 'INSERT' AND OLD.corpus = 'style')) THEN
        RAISE EXCEPTION 'the chair''s finals (the style corpus) are not an agent''s to write'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
END $$;

--
-- Name: style_history_methodology_size(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.style_history_methodology_size() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
DECLARE
    profile jsonb;
    saved integer;
    rules integer;
    folded integer;
    phrases integer;
BEGIN
    SELECT m.profile, m.version INTO profile, saved
    FROM methodology_profiles m WHERE m.appeal_type = 'universal';
    IF profile IS NULL THEN
        NEW.methodology_size := NULL;
        RETURN NEW;
    END IF;
    rules := CASE WHEN jsonb_typeof(profile -> 'discussion_rules') = 'array'
                  THEN jsonb_array_length(profile -> 'discussion_rules') ELSE 0 END;
    folded := CASE WHEN jsonb_typeof(profile -> 'lessons') = 'array'
                   THEN jsonb_array_length(profile -> 'lessons') ELSE 0 END;
    phrases := CASE WHEN jsonb_typeof(profile -> 'transition_phrases') = 'array'
                    THEN jsonb_array_length(profile -> 'transition_phrases') ELSE 0 END;
    NEW.methodology_size := rules + folded + phrases;
    NEW.metrics := coalesce(NEW.metrics, '{}'::jsonb) || jsonb_build_object(
        'methodology_size', jsonb_build_object(
            'version', saved, 'discussion_rules', rules, 'folded_lessons', folded,
            'transition_phrases', phrases));
    RETURN NEW;
END $$;

--
-- Name: system_call(bigint, text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.system_call(call_id bigint, stage_name text, model_name text) RETURNS boolean
    LANGUAGE sql STABLE
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
    SELECT EXISTS (
        SELECT 1 FROM model_calls c
        WHERE c.id = call_id AND c.outcome = 'ok' AND c.stage = stage_name
          AND c.db_role = 'legal_ai_worker' AND c.provider || ':' || c.model = model_name)
$$;

--
-- Name: treatments_delete_gate(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.treatments_delete_gate() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    IF acting_as_agent() THEN
        RAISE EXCEPTION 'what became of a ruling is not an agent''s to remove (running as %)',
            current_user USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN OLD;
END $$;

--
-- Name: treatments_gate(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.treatments_gate() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
DECLARE
    reading_changed boolean;
    review_changed boolean;
BEGIN
    IF acting_as_agent() THEN
        RAISE EXCEPTION 'what became of a ruling is read by the system and confirmed by the '
            'chair, not written by an agent (running as %)', current_user
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    NEW.written_role := current_user;
    NEW.updated_at := now();
    IF TG_OP = 'INSERT' THEN
        NEW.created_at := now();
        NEW.review_status := 'unconfirmed';
        NEW.reviewed_by := NULL;
        NEW.reviewed_at := NULL;
        NEW.review_reason := NULL;
        RETURN NEW;
    END IF;
    NEW.created_at := OLD.created_at;
    reading_changed := (NEW.by_case_law_id, NEW.cited_ref, NEW.case_law_id, NEW.relation,
                        NEW.kind, NEW.read_by, NEW.sentence)
        IS DISTINCT FROM (OLD.by_case_law_id, OLD.cited_ref, OLD.case_law_id, OLD.relation,
                          OLD.kind, OLD.read_by, OLD.sentence);
    review_changed := (NEW.review_status, NEW.reviewed_by, NEW.reviewed_at, NEW.review_reason)
        IS DISTINCT FROM (OLD.review_status, OLD.reviewed_by, OLD.reviewed_at, OLD.review_reason);
    IF review_changed THEN
        IF NOT acting_as_chair() THEN
            RAISE EXCEPTION 'treatment %: only the chair confirms or rejects what became of a '
                'ruling (running as %)', OLD.id, current_user
                USING ERRCODE = 'insufficient_privilege';
        END IF;
        IF reading_changed THEN
            RAISE EXCEPTION 'treatment %: a decision confirms the reading she was shown; it '
                'changes nothing else', OLD.id USING ERRCODE = 'check_violation', CONSTRAINT = 'treatment_confirms_only';
        END IF;
        IF OLD.case_law_id IS NULL OR OLD.relation <> 'attacked' THEN
            RAISE EXCEPTION 'treatment %: only a petition or appeal against a ruling of the '
                'library is confirmed', OLD.id USING ERRCODE = 'check_violation', CONSTRAINT = 'treatment_appeal_lower_court';
        END IF;
        NEW.reviewed_by := CASE WHEN NEW.review_status = 'unconfirmed' THEN NULL ELSE 'chair' END;
        NEW.reviewed_at := CASE WHEN NEW.review_status = 'unconfirmed' THEN NULL ELSE now() END;
        INSERT INTO learning_audit (actor, action, case_number, from_status, to_status, reason,
                                    details)
        VALUES ('chair', 'review_treatment',
                (SELECT c.case_number FROM case_law c WHERE c.id = OLD.case_law_id),
                OLD.review_status, NEW.review_status, NEW.review_reason,
                jsonb_build_object('treatment_id', OLD.id, 'case_law_id', OLD.case_law_id,
                                   'by_case_law_id', OLD.by_case_law_id, 'kind', OLD.kind,
                                   'read_by', OLD.read_by));
    ELSIF reading_changed THEN
        -- A new reading waits for her, whoever read it.
        NEW.review_status := 'unconfirmed';
        NEW.reviewed_by := NULL;
        NEW.reviewed_at := NULL;
        NEW.review_reason := NULL;
    END IF;
    RETURN NEW;
END $$;

--
-- Name: unit_term_stats(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.unit_term_stats() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    SELECT coalesce(jsonb_object_agg(lexeme, array_length(positions, 1)), '{}'::jsonb),
           coalesce(sum(array_length(positions, 1)), 0)
    INTO NEW.term_freqs, NEW.token_count
    FROM unnest(to_tsvector('simple'::regconfig, NEW.analyzed));
    RETURN NEW;
END $$;

--
-- Name: version_record(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.version_record() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    NEW.db_role := current_user;
    NEW.at := now();
    RETURN NEW;
END $$;

--
-- Name: voice_document_gate(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.voice_document_gate() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
DECLARE
    chair boolean := acting_as_chair();
    decider boolean;
    written boolean;
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'voice document % is never deleted: the chair rejects it', OLD.id
            USING ERRCODE = 'check_violation', CONSTRAINT = 'voice_never_deleted';
    END IF;
    IF TG_OP = 'INSERT' THEN
        IF NOT coalesce(chair, NEW.marked_by IS NOT DISTINCT FROM 'chair') THEN
            RAISE EXCEPTION 'only the chair marks a case as exemplary (running as %)', current_user
                USING ERRCODE = 'check_violation', CONSTRAINT = 'voice_mark_chair';
        END IF;
        IF NEW.status <> 'queued' THEN
            RAISE EXCEPTION 'a voice document starts queued' USING ERRCODE = 'check_violation', CONSTRAINT = 'voice_starts_queued';
        END IF;
        RETURN NEW;
    END IF;
    IF (NEW.case_number, NEW.marked_by, NEW.marked_at, NEW.note)
       IS DISTINCT FROM (OLD.case_number, OLD.marked_by, OLD.marked_at, OLD.note) THEN
        RAISE EXCEPTION 'voice document %: the mark is frozen', OLD.id
            USING ERRCODE = 'check_violation', CONSTRAINT = 'voice_mark_frozen';
    END IF;
    written := OLD.status = 'queued' AND NEW.status = 'pending_review';
    IF OLD.status <> 'queued' AND NOT written
       AND (NEW.document, NEW.claims, NEW.dropped_claims, NEW.substance_claims, NEW.model,
            NEW.written_by, NEW.written_at, NEW.final_hash, NEW.style_document_id, NEW.doc_id)
           IS DISTINCT FROM
           (OLD.document, OLD.claims, OLD.dropped_claims, OLD.substance_claims, OLD.model,
            OLD.written_by, OLD.written_at, OLD.final_hash, OLD.style_document_id, OLD.doc_id) THEN
        RAISE EXCEPTION 'voice document % is written: its text and provenance are frozen', OLD.id
            USING ERRCODE = 'check_violation', CONSTRAINT = 'voice_written_frozen';
    END IF;
    IF NEW.status IS DISTINCT FROM OLD.status THEN
        IF NOT (written
                OR (OLD.status = 'pending_review' AND NEW.status IN ('approved', 'rejected'))
                OR (OLD.status IN ('queued', 'approved') AND NEW.status = 'rejected')) THEN
            RAISE EXCEPTION 'voice document %: % -> % is not a move', OLD.id, OLD.status,
                NEW.status USING ERRCODE = 'check_violation', CONSTRAINT = 'voice_move';
        END IF;
        IF NEW.status IN ('approved', 'rejected') THEN
            decider := coalesce(chair, NEW.reviewed_by IS NOT DISTINCT FROM 'chair');
            IF NOT decider THEN
                RAISE EXCEPTION 'a voice document reaches the writer only by the chair: only she '
                    'approves or rejects it (running as %)', current_user
                    USING ERRCODE = 'check_violation', CONSTRAINT = 'voice_chair_decides';
            END IF;
            NEW.reviewed_at := now();
        END IF;
    ELSIF (NEW.reviewed_by, NEW.review_reason) IS DISTINCT FROM (OLD.reviewed_by, OLD.review_reason)
          AND NOT coalesce(chair, NEW.reviewed_by IS NOT DISTINCT FROM 'chair') THEN
        RAISE EXCEPTION 'voice document %: only the chair records a review', OLD.id
            USING ERRCODE = 'check_violation', CONSTRAINT = 'voice_review_chair';
    END IF;
    NEW.updated_at := now();
    RETURN NEW;
END $$;

--
-- Name: voice_document_record(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.voice_document_record() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'public', 'pg_temp'
    AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO learning_audit (actor, action, case_number, to_status, reason, details)
        VALUES (NEW.marked_by, 'voice_document', NEW.case_number, NEW.status, NEW.note,
                jsonb_build_object('voice_document_id', NEW.id, 'move', 'mark'));
    ELSIF NEW.status IS DISTINCT FROM OLD.status THEN
        INSERT INTO learning_audit (actor, action, case_number, from_status, to_status, reason,
                                    details)
        VALUES (coalesce(CASE WHEN NEW.status IN ('approved', 'rejected') THEN NEW.reviewed_by
                              ELSE NEW.written_by END, current_user),
                'voice_document', NEW.case_number, OLD.status, NEW.status,
                CASE WHEN NEW.status IN ('approved', 'rejected') THEN NEW.review_reason END,
                jsonb_build_object('voice_document_id', NEW.id, 'claims', NEW.claims,
                                   'dropped_claims', NEW.dropped_claims,
                                   'substance_claims', NEW.substance_claims,
                                   'model', NEW.model));
    END IF;
    RETURN NULL;
END $$;

--
-- Name: authorities; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.authorities (
    id bigint NOT NULL,
    ref text NOT NULL,
    kind text NOT NULL,
    case_law_id bigint,
    corroboration integer DEFAULT 0 NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    link_basis text,
    candidates bigint[] DEFAULT '{}'::bigint[] NOT NULL,
    CONSTRAINT authorities_kind_check CHECK ((kind = ANY (ARRAY['ruling'::text, 'statute'::text, 'reporter'::text]))),
    CONSTRAINT authorities_link_basis_check CHECK ((link_basis = ANY (ARRAY['exact'::text, 'without_district'::text, 'alias'::text, 'chair'::text])))
);

--
-- Name: authorities_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.authorities ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.authorities_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: block_exemplars; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.block_exemplars (
    id bigint NOT NULL,
    corpus text DEFAULT 'style'::text NOT NULL,
    document_id bigint NOT NULL,
    block text NOT NULL,
    ordinal integer NOT NULL,
    char_start integer NOT NULL,
    char_end integer NOT NULL,
    text text NOT NULL,
    source_hash text NOT NULL,
    case_number text,
    appeal_type text,
    outcome text,
    practice_area text,
    decided_on date,
    text_hash text NOT NULL,
    analyzed text NOT NULL,
    analyzer text NOT NULL,
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, analyzed)) STORED,
    embedding public.vector,
    embedder text,
    embedded_hash text,
    stale boolean GENERATED ALWAYS AS ((embedded_hash IS DISTINCT FROM text_hash)) STORED,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT block_exemplars_block_check CHECK ((block = ANY (ARRAY['header'::text, 'opening'::text, 'background'::text, 'subject'::text, 'decision_under_appeal'::text, 'appellants_claims'::text, 'respondents_claims'::text, 'hearing'::text, 'legal_framework'::text, 'discussion'::text, 'conclusion'::text, 'signature'::text]))),
    CONSTRAINT block_exemplars_char_start_check CHECK ((char_start >= 0)),
    CONSTRAINT block_exemplars_check CHECK ((char_end > char_start)),
    CONSTRAINT block_exemplars_corpus_check CHECK ((corpus = 'style'::text)),
    CONSTRAINT block_exemplars_ordinal_check CHECK ((ordinal >= 0)),
    CONSTRAINT block_exemplars_text_check CHECK ((btrim(text) <> ''::text))
);

--
-- Name: block_exemplars_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.block_exemplars ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.block_exemplars_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: block_templates; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.block_templates (
    id bigint NOT NULL,
    block text NOT NULL,
    text text NOT NULL,
    slots text[] DEFAULT '{}'::text[] NOT NULL,
    support integer NOT NULL,
    words integer NOT NULL,
    examples jsonb NOT NULL,
    sources jsonb NOT NULL,
    appeal_types jsonb DEFAULT '{}'::jsonb NOT NULL,
    computed_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT block_templates_block_check CHECK ((block = ANY (ARRAY['header'::text, 'opening'::text, 'background'::text, 'subject'::text, 'decision_under_appeal'::text, 'appellants_claims'::text, 'respondents_claims'::text, 'hearing'::text, 'legal_framework'::text, 'discussion'::text, 'conclusion'::text, 'signature'::text]))),
    CONSTRAINT block_templates_support_check CHECK ((support >= 2)),
    CONSTRAINT block_templates_text_check CHECK ((btrim(text) <> ''::text)),
    CONSTRAINT block_templates_words_check CHECK ((words > 0))
);

--
-- Name: block_templates_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.block_templates ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.block_templates_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: canonical_principles; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.canonical_principles (
    id bigint NOT NULL,
    source_kind text NOT NULL,
    rule_text text NOT NULL,
    status text DEFAULT 'pending_synthesis'::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    canonical_statement text,
    grounded boolean,
    embedding public.vector,
    embedder text,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    reviewed_by text,
    reviewed_at timestamp with time zone,
    review_reason text,
    statement_by text,
    statement_hash text,
    CONSTRAINT canonical_principles_canonical_statement_check CHECK ((btrim(canonical_statement) <> ''::text)),
    CONSTRAINT canonical_principles_rule_text_check CHECK ((btrim(rule_text) <> ''::text)),
    CONSTRAINT canonical_principles_source_kind_check CHECK ((source_kind = ANY (ARRAY['external_upload'::text, 'internal_committee'::text]))),
    CONSTRAINT canonical_principles_status_check CHECK ((status = ANY (ARRAY['pending_synthesis'::text, 'pending_review'::text, 'approved'::text, 'rejected'::text])))
);

--
-- Name: canonical_principles_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.canonical_principles ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.canonical_principles_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: canonical_statement_versions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.canonical_statement_versions (
    id bigint NOT NULL,
    canonical_id bigint NOT NULL,
    version integer NOT NULL,
    statement text NOT NULL,
    author text NOT NULL,
    db_role text DEFAULT CURRENT_USER NOT NULL,
    reason text,
    at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT canonical_statement_versions_statement_check CHECK ((btrim(statement) <> ''::text)),
    CONSTRAINT canonical_statement_versions_version_check CHECK ((version >= 1))
);

--
-- Name: canonical_statement_versions_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.canonical_statement_versions ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.canonical_statement_versions_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: case_law; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.case_law (
    id bigint NOT NULL,
    source_kind text NOT NULL,
    doc_type text NOT NULL,
    doc_id text NOT NULL,
    case_number text,
    title text,
    court text,
    decided_on date,
    judges text[] DEFAULT '{}'::text[] NOT NULL,
    chair_name text,
    is_binding boolean DEFAULT false NOT NULL,
    headnote text,
    summary text,
    tags text[] DEFAULT '{}'::text[] NOT NULL,
    practice_area text,
    law_title text,
    section_num text,
    eid text,
    source_path text,
    source_format text,
    content text DEFAULT ''::text NOT NULL,
    page_starts integer[],
    content_hash text NOT NULL,
    file_sha256 text,
    extraction_issue text,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    version integer DEFAULT 1 NOT NULL,
    missing text[] DEFAULT '{}'::text[] NOT NULL,
    searchable boolean DEFAULT false NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    ruling_proceeding text,
    ruling_district text,
    ruling_number text,
    aliases text[] DEFAULT '{}'::text[] NOT NULL,
    meta_text text GENERATED ALWAYS AS (public.decision_meta_text(headnote, summary, tags)) STORED,
    meta_hash text GENERATED ALWAYS AS (public.decision_meta_hash(public.decision_meta_text(headnote, summary, tags))) STORED,
    CONSTRAINT case_law_doc_id_check CHECK ((btrim(doc_id) <> ''::text)),
    CONSTRAINT case_law_doc_type_check CHECK ((doc_type = ANY (ARRAY['ruling'::text, 'legislation'::text, 'reference'::text, 'decision'::text]))),
    CONSTRAINT case_law_source_kind_check CHECK ((source_kind = ANY (ARRAY['external_upload'::text, 'internal_committee'::text]))),
    CONSTRAINT doc_type_fits_source CHECK (((source_kind = 'internal_committee'::text) = (doc_type = 'decision'::text))),
    CONSTRAINT internal_has_chair CHECK (((source_kind <> 'internal_committee'::text) OR (COALESCE(btrim(chair_name), ''::text) <> ''::text)))
);

--
-- Name: case_law_chunks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.case_law_chunks (
    id bigint NOT NULL,
    source_kind text NOT NULL,
    case_law_id bigint NOT NULL,
    ordinal integer NOT NULL,
    page integer,
    char_start integer NOT NULL,
    char_end integer NOT NULL,
    section text,
    text text NOT NULL,
    text_hash text NOT NULL,
    analyzed text NOT NULL,
    analyzer text NOT NULL,
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, public.chunk_lexical_text(analyzed, meta_analyzed, meta_analyzed_hash, meta_hash))) STORED,
    embedding public.vector,
    embedder text,
    embedded_hash text,
    stale boolean GENERATED ALWAYS AS (((embedded_hash IS DISTINCT FROM text_hash) OR ((meta_embedded_hash IS NOT NULL) AND (meta_embedded_hash IS DISTINCT FROM meta_hash)))) STORED,
    term_freqs jsonb DEFAULT '{}'::jsonb NOT NULL,
    token_count integer DEFAULT 0 NOT NULL,
    chunk_total integer,
    meta_hash text,
    meta_analyzed text DEFAULT ''::text NOT NULL,
    meta_analyzed_hash text,
    meta_embedded_hash text,
    practice_area text,
    CONSTRAINT case_law_chunks_char_start_check CHECK ((char_start >= 0)),
    CONSTRAINT case_law_chunks_check CHECK ((char_end > char_start)),
    CONSTRAINT case_law_chunks_chunk_total_check CHECK ((chunk_total > 0))
)
PARTITION BY LIST (source_kind);

--
-- Name: case_law_chunks_external; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.case_law_chunks_external (
    id bigint CONSTRAINT case_law_chunks_id_not_null NOT NULL,
    source_kind text CONSTRAINT case_law_chunks_source_kind_not_null NOT NULL,
    case_law_id bigint CONSTRAINT case_law_chunks_case_law_id_not_null NOT NULL,
    ordinal integer CONSTRAINT case_law_chunks_ordinal_not_null NOT NULL,
    page integer,
    char_start integer CONSTRAINT case_law_chunks_char_start_not_null NOT NULL,
    char_end integer CONSTRAINT case_law_chunks_char_end_not_null NOT NULL,
    section text,
    text text CONSTRAINT case_law_chunks_text_not_null NOT NULL,
    text_hash text CONSTRAINT case_law_chunks_text_hash_not_null NOT NULL,
    analyzed text CONSTRAINT case_law_chunks_analyzed_not_null NOT NULL,
    analyzer text CONSTRAINT case_law_chunks_analyzer_not_null NOT NULL,
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, public.chunk_lexical_text(analyzed, meta_analyzed, meta_analyzed_hash, meta_hash))) STORED,
    embedding public.vector,
    embedder text,
    embedded_hash text,
    stale boolean GENERATED ALWAYS AS (((embedded_hash IS DISTINCT FROM text_hash) OR ((meta_embedded_hash IS NOT NULL) AND (meta_embedded_hash IS DISTINCT FROM meta_hash)))) STORED,
    term_freqs jsonb DEFAULT '{}'::jsonb CONSTRAINT case_law_chunks_term_freqs_not_null NOT NULL,
    token_count integer DEFAULT 0 CONSTRAINT case_law_chunks_token_count_not_null NOT NULL,
    chunk_total integer,
    meta_hash text,
    meta_analyzed text DEFAULT ''::text CONSTRAINT case_law_chunks_meta_analyzed_not_null NOT NULL,
    meta_analyzed_hash text,
    meta_embedded_hash text,
    practice_area text,
    CONSTRAINT case_law_chunks_char_start_check CHECK ((char_start >= 0)),
    CONSTRAINT case_law_chunks_check CHECK ((char_end > char_start)),
    CONSTRAINT case_law_chunks_chunk_total_check CHECK ((chunk_total > 0))
);

--
-- Name: case_law_chunks_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.case_law_chunks ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.case_law_chunks_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: case_law_chunks_internal; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.case_law_chunks_internal (
    id bigint CONSTRAINT case_law_chunks_id_not_null NOT NULL,
    source_kind text CONSTRAINT case_law_chunks_source_kind_not_null NOT NULL,
    case_law_id bigint CONSTRAINT case_law_chunks_case_law_id_not_null NOT NULL,
    ordinal integer CONSTRAINT case_law_chunks_ordinal_not_null NOT NULL,
    page integer,
    char_start integer CONSTRAINT case_law_chunks_char_start_not_null NOT NULL,
    char_end integer CONSTRAINT case_law_chunks_char_end_not_null NOT NULL,
    section text,
    text text CONSTRAINT case_law_chunks_text_not_null NOT NULL,
    text_hash text CONSTRAINT case_law_chunks_text_hash_not_null NOT NULL,
    analyzed text CONSTRAINT case_law_chunks_analyzed_not_null NOT NULL,
    analyzer text CONSTRAINT case_law_chunks_analyzer_not_null NOT NULL,
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, public.chunk_lexical_text(analyzed, meta_analyzed, meta_analyzed_hash, meta_hash))) STORED,
    embedding public.vector,
    embedder text,
    embedded_hash text,
    stale boolean GENERATED ALWAYS AS (((embedded_hash IS DISTINCT FROM text_hash) OR ((meta_embedded_hash IS NOT NULL) AND (meta_embedded_hash IS DISTINCT FROM meta_hash)))) STORED,
    term_freqs jsonb DEFAULT '{}'::jsonb CONSTRAINT case_law_chunks_term_freqs_not_null NOT NULL,
    token_count integer DEFAULT 0 CONSTRAINT case_law_chunks_token_count_not_null NOT NULL,
    chunk_total integer,
    meta_hash text,
    meta_analyzed text DEFAULT ''::text CONSTRAINT case_law_chunks_meta_analyzed_not_null NOT NULL,
    meta_analyzed_hash text,
    meta_embedded_hash text,
    practice_area text,
    CONSTRAINT case_law_chunks_char_start_check CHECK ((char_start >= 0)),
    CONSTRAINT case_law_chunks_check CHECK ((char_end > char_start)),
    CONSTRAINT case_law_chunks_chunk_total_check CHECK ((chunk_total > 0))
);

--
-- Name: case_law_enrichments_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.case_law_enrichments ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.case_law_enrichments_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: case_law_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.case_law ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.case_law_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: case_law_page_images; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.case_law_page_images (
    id bigint NOT NULL,
    source_kind text NOT NULL,
    case_law_id bigint NOT NULL,
    page integer NOT NULL,
    text_hash text NOT NULL,
    embedding public.vector,
    embedder text,
    embedded_hash text,
    stale boolean GENERATED ALWAYS AS ((embedded_hash IS DISTINCT FROM text_hash)) STORED,
    CONSTRAINT case_law_page_images_page_check CHECK ((page >= 1))
)
PARTITION BY LIST (source_kind);

--
-- Name: case_law_page_images_external; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.case_law_page_images_external (
    id bigint CONSTRAINT case_law_page_images_id_not_null NOT NULL,
    source_kind text CONSTRAINT case_law_page_images_source_kind_not_null NOT NULL,
    case_law_id bigint CONSTRAINT case_law_page_images_case_law_id_not_null NOT NULL,
    page integer CONSTRAINT case_law_page_images_page_not_null NOT NULL,
    text_hash text CONSTRAINT case_law_page_images_text_hash_not_null NOT NULL,
    embedding public.vector,
    embedder text,
    embedded_hash text,
    stale boolean GENERATED ALWAYS AS ((embedded_hash IS DISTINCT FROM text_hash)) STORED,
    CONSTRAINT case_law_page_images_page_check CHECK ((page >= 1))
);

--
-- Name: case_law_page_images_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.case_law_page_images ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.case_law_page_images_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: case_law_page_images_internal; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.case_law_page_images_internal (
    id bigint CONSTRAINT case_law_page_images_id_not_null NOT NULL,
    source_kind text CONSTRAINT case_law_page_images_source_kind_not_null NOT NULL,
    case_law_id bigint CONSTRAINT case_law_page_images_case_law_id_not_null NOT NULL,
    page integer CONSTRAINT case_law_page_images_page_not_null NOT NULL,
    text_hash text CONSTRAINT case_law_page_images_text_hash_not_null NOT NULL,
    embedding public.vector,
    embedder text,
    embedded_hash text,
    stale boolean GENERATED ALWAYS AS ((embedded_hash IS DISTINCT FROM text_hash)) STORED,
    CONSTRAINT case_law_page_images_page_check CHECK ((page >= 1))
);

--
-- Name: case_law_principles; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.case_law_principles (
    id bigint NOT NULL,
    source_kind text NOT NULL,
    case_law_id bigint NOT NULL,
    rule_text text NOT NULL,
    supporting_quote text NOT NULL,
    page integer,
    char_start integer,
    char_end integer,
    review_status text DEFAULT 'proposed'::text NOT NULL,
    text_hash text NOT NULL,
    analyzed text NOT NULL,
    analyzer text NOT NULL,
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, analyzed)) STORED,
    embedding public.vector,
    embedder text,
    embedded_hash text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    stale boolean GENERATED ALWAYS AS ((embedded_hash IS DISTINCT FROM text_hash)) STORED,
    term_freqs jsonb DEFAULT '{}'::jsonb NOT NULL,
    token_count integer DEFAULT 0 NOT NULL,
    reviewed_by text,
    reviewed_at timestamp with time zone,
    review_reason text,
    votes integer,
    score double precision,
    models text,
    canonical_id bigint,
    job_id bigint,
    confirmed_by text,
    confirmed_at timestamp with time zone,
    span_hash text,
    returned_reason text,
    returned_at timestamp with time zone,
    cap_counted boolean DEFAULT false NOT NULL,
    CONSTRAINT case_law_principles_returned_check CHECK (((returned_reason IS NULL) = (returned_at IS NULL))),
    CONSTRAINT case_law_principles_returned_reason_check CHECK ((btrim(returned_reason) <> ''::text)),
    CONSTRAINT case_law_principles_review_status_check CHECK ((review_status = ANY (ARRAY['proposed'::text, 'approved'::text, 'rejected'::text, 'vetoed'::text]))),
    CONSTRAINT case_law_principles_rule_text_check CHECK ((btrim(rule_text) <> ''::text)),
    CONSTRAINT case_law_principles_score_check CHECK (((score >= (0)::double precision) AND (score <= (1)::double precision))),
    CONSTRAINT case_law_principles_supporting_quote_check CHECK ((btrim(supporting_quote) <> ''::text)),
    CONSTRAINT case_law_principles_votes_check CHECK (((votes >= 0) AND (votes <= 3)))
)
PARTITION BY LIST (source_kind);

--
-- Name: case_law_principles_external; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.case_law_principles_external (
    id bigint CONSTRAINT case_law_principles_id_not_null NOT NULL,
    source_kind text CONSTRAINT case_law_principles_source_kind_not_null NOT NULL,
    case_law_id bigint CONSTRAINT case_law_principles_case_law_id_not_null NOT NULL,
    rule_text text CONSTRAINT case_law_principles_rule_text_not_null NOT NULL,
    supporting_quote text CONSTRAINT case_law_principles_supporting_quote_not_null NOT NULL,
    page integer,
    char_start integer,
    char_end integer,
    review_status text DEFAULT 'proposed'::text CONSTRAINT case_law_principles_review_status_not_null NOT NULL,
    text_hash text CONSTRAINT case_law_principles_text_hash_not_null NOT NULL,
    analyzed text CONSTRAINT case_law_principles_analyzed_not_null NOT NULL,
    analyzer text CONSTRAINT case_law_principles_analyzer_not_null NOT NULL,
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, analyzed)) STORED,
    embedding public.vector,
    embedder text,
    embedded_hash text,
    created_at timestamp with time zone DEFAULT now() CONSTRAINT case_law_principles_created_at_not_null NOT NULL,
    stale boolean GENERATED ALWAYS AS ((embedded_hash IS DISTINCT FROM text_hash)) STORED,
    term_freqs jsonb DEFAULT '{}'::jsonb CONSTRAINT case_law_principles_term_freqs_not_null NOT NULL,
    token_count integer DEFAULT 0 CONSTRAINT case_law_principles_token_count_not_null NOT NULL,
    reviewed_by text,
    reviewed_at timestamp with time zone,
    review_reason text,
    votes integer,
    score double precision,
    models text,
    canonical_id bigint,
    job_id bigint,
    confirmed_by text,
    confirmed_at timestamp with time zone,
    span_hash text,
    returned_reason text,
    returned_at timestamp with time zone,
    cap_counted boolean DEFAULT false CONSTRAINT case_law_principles_cap_counted_not_null NOT NULL,
    CONSTRAINT case_law_principles_returned_check CHECK (((returned_reason IS NULL) = (returned_at IS NULL))),
    CONSTRAINT case_law_principles_returned_reason_check CHECK ((btrim(returned_reason) <> ''::text)),
    CONSTRAINT case_law_principles_review_status_check CHECK ((review_status = ANY (ARRAY['proposed'::text, 'approved'::text, 'rejected'::text, 'vetoed'::text]))),
    CONSTRAINT case_law_principles_rule_text_check CHECK ((btrim(rule_text) <> ''::text)),
    CONSTRAINT case_law_principles_score_check CHECK (((score >= (0)::double precision) AND (score <= (1)::double precision))),
    CONSTRAINT case_law_principles_supporting_quote_check CHECK ((btrim(supporting_quote) <> ''::text)),
    CONSTRAINT case_law_principles_votes_check CHECK (((votes >= 0) AND (votes <= 3)))
);

--
-- Name: case_law_principles_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.case_law_principles ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.case_law_principles_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: case_law_principles_internal; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.case_law_principles_internal (
    id bigint CONSTRAINT case_law_principles_id_not_null NOT NULL,
    source_kind text CONSTRAINT case_law_principles_source_kind_not_null NOT NULL,
    case_law_id bigint CONSTRAINT case_law_principles_case_law_id_not_null NOT NULL,
    rule_text text CONSTRAINT case_law_principles_rule_text_not_null NOT NULL,
    supporting_quote text CONSTRAINT case_law_principles_supporting_quote_not_null NOT NULL,
    page integer,
    char_start integer,
    char_end integer,
    review_status text DEFAULT 'proposed'::text CONSTRAINT case_law_principles_review_status_not_null NOT NULL,
    text_hash text CONSTRAINT case_law_principles_text_hash_not_null NOT NULL,
    analyzed text CONSTRAINT case_law_principles_analyzed_not_null NOT NULL,
    analyzer text CONSTRAINT case_law_principles_analyzer_not_null NOT NULL,
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, analyzed)) STORED,
    embedding public.vector,
    embedder text,
    embedded_hash text,
    created_at timestamp with time zone DEFAULT now() CONSTRAINT case_law_principles_created_at_not_null NOT NULL,
    stale boolean GENERATED ALWAYS AS ((embedded_hash IS DISTINCT FROM text_hash)) STORED,
    term_freqs jsonb DEFAULT '{}'::jsonb CONSTRAINT case_law_principles_term_freqs_not_null NOT NULL,
    token_count integer DEFAULT 0 CONSTRAINT case_law_principles_token_count_not_null NOT NULL,
    reviewed_by text,
    reviewed_at timestamp with time zone,
    review_reason text,
    votes integer,
    score double precision,
    models text,
    canonical_id bigint,
    job_id bigint,
    confirmed_by text,
    confirmed_at timestamp with time zone,
    span_hash text,
    returned_reason text,
    returned_at timestamp with time zone,
    cap_counted boolean DEFAULT false CONSTRAINT case_law_principles_cap_counted_not_null NOT NULL,
    CONSTRAINT case_law_principles_returned_check CHECK (((returned_reason IS NULL) = (returned_at IS NULL))),
    CONSTRAINT case_law_principles_returned_reason_check CHECK ((btrim(returned_reason) <> ''::text)),
    CONSTRAINT case_law_principles_review_status_check CHECK ((review_status = ANY (ARRAY['proposed'::text, 'approved'::text, 'rejected'::text, 'vetoed'::text]))),
    CONSTRAINT case_law_principles_rule_text_check CHECK ((btrim(rule_text) <> ''::text)),
    CONSTRAINT case_law_principles_score_check CHECK (((score >= (0)::double precision) AND (score <= (1)::double precision))),
    CONSTRAINT case_law_principles_supporting_quote_check CHECK ((btrim(supporting_quote) <> ''::text)),
    CONSTRAINT case_law_principles_votes_check CHECK (((votes >= 0) AND (votes <= 3)))
);

--
-- Name: case_precedents; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.case_precedents (
    id bigint NOT NULL,
    case_number text NOT NULL,
    citation text NOT NULL,
    citation_key text NOT NULL,
    case_law_id bigint,
    note text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    search_text text DEFAULT ''::text NOT NULL,
    text_hash text,
    analyzed text DEFAULT ''::text NOT NULL,
    analyzer text,
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, analyzed)) STORED,
    embedding public.vector,
    embedder text,
    embedded_hash text,
    stale boolean GENERATED ALWAYS AS ((embedded_hash IS DISTINCT FROM text_hash)) STORED,
    term_freqs jsonb DEFAULT '{}'::jsonb NOT NULL,
    token_count integer DEFAULT 0 NOT NULL,
    CONSTRAINT case_precedents_citation_check CHECK ((btrim(citation) <> ''::text))
);

--
-- Name: case_precedents_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.case_precedents ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.case_precedents_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: case_status; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.case_status (
    case_number text NOT NULL,
    status text NOT NULL,
    previous text,
    changed_at timestamp with time zone NOT NULL,
    pushed_status text,
    pushed_at timestamp with time zone,
    CONSTRAINT case_status_status_check CHECK ((status = ANY (ARRAY['open'::text, 'draft_done'::text, 'final_received'::text, 'analyzed'::text, 'lessons_folded'::text])))
);

--
-- Name: cases; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.cases (
    id bigint NOT NULL,
    case_number text NOT NULL,
    title text,
    practice_area text,
    appeal_type text,
    committee text,
    chair_name text,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    outcome text,
    labels_source text,
    created_role text,
    created_by text,
    CONSTRAINT cases_case_number_check CHECK ((btrim(case_number) <> ''::text)),
    CONSTRAINT cases_labels_source_check CHECK ((labels_source = ANY (ARRAY['final'::text, 'draft'::text])))
);

--
-- Name: cases_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.cases ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.cases_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: chair_feedback; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.chair_feedback (
    id bigint NOT NULL,
    case_number text,
    block text,
    category text NOT NULL,
    text text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    actor text DEFAULT 'operator'::text NOT NULL,
    db_role text DEFAULT CURRENT_USER NOT NULL,
    CONSTRAINT chair_feedback_actor_check CHECK ((btrim(actor) <> ''::text)),
    CONSTRAINT chair_feedback_category_check CHECK ((category = ANY (ARRAY['missing_content'::text, 'wrong_tone'::text, 'wrong_structure'::text, 'factual_error'::text, 'style'::text, 'other'::text]))),
    CONSTRAINT chair_feedback_text_check CHECK ((btrim(text) <> ''::text))
);

--
-- Name: chair_feedback_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.chair_feedback ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.chair_feedback_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: cite_reports; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.cite_reports (
    id bigint NOT NULL,
    checked_case text NOT NULL,
    subject text NOT NULL,
    draft_id bigint,
    case_law_id bigint,
    version integer NOT NULL,
    content_hash text NOT NULL,
    report jsonb NOT NULL,
    library jsonb NOT NULL,
    checked_by text DEFAULT CURRENT_USER NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT cite_reports_check CHECK (((subject = 'draft'::text) = (draft_id IS NOT NULL))),
    CONSTRAINT cite_reports_check1 CHECK (((subject = 'final'::text) = (case_law_id IS NOT NULL))),
    CONSTRAINT cite_reports_library_check CHECK ((jsonb_typeof(library) = 'object'::text)),
    CONSTRAINT cite_reports_report_check CHECK ((jsonb_typeof(report) = 'object'::text)),
    CONSTRAINT cite_reports_subject_check CHECK ((subject = ANY (ARRAY['draft'::text, 'final'::text]))),
    CONSTRAINT cite_reports_version_check CHECK ((version > 0))
);

--
-- Name: cite_reports_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.cite_reports ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.cite_reports_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: copy_fingerprints; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.copy_fingerprints (
    id bigint NOT NULL,
    document_id bigint,
    case_law_id bigint,
    content_hash text NOT NULL,
    method text NOT NULL,
    shingles bigint[] NOT NULL,
    taken_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT copy_fingerprints_check CHECK (((document_id IS NULL) <> (case_law_id IS NULL))),
    CONSTRAINT copy_fingerprints_method_check CHECK ((btrim(method) <> ''::text))
);

--
-- Name: copy_fingerprints_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.copy_fingerprints ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.copy_fingerprints_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: corpus_requirements; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.corpus_requirements (
    corpus text NOT NULL,
    doc_type text NOT NULL,
    field text NOT NULL
);

--
-- Name: decision_blocks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.decision_blocks (
    block text NOT NULL,
    "position" integer NOT NULL,
    label_he text NOT NULL
);

--
-- Name: decision_citations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.decision_citations (
    id bigint NOT NULL,
    citing_case_law_id bigint NOT NULL,
    authority_id bigint NOT NULL,
    text text NOT NULL,
    char_start integer NOT NULL,
    char_end integer NOT NULL
);

--
-- Name: decision_citations_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.decision_citations ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.decision_citations_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: decision_lessons; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.decision_lessons (
    id bigint NOT NULL,
    pair_id bigint,
    case_number text,
    category text NOT NULL,
    text text NOT NULL,
    block text,
    appeal_type text,
    outcome text,
    source text NOT NULL,
    review_status text DEFAULT 'proposed'::text NOT NULL,
    reviewed_by text,
    reviewed_at timestamp with time zone,
    review_reason text,
    needs_chair boolean DEFAULT false NOT NULL,
    folded_into integer,
    dedupe_key text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    proposed_by text,
    evidence jsonb,
    panel_models text,
    corroboration integer DEFAULT 0 NOT NULL,
    routed_reason text,
    job_id bigint,
    proposed_role text,
    evidence_verified boolean DEFAULT false NOT NULL,
    CONSTRAINT decision_lessons_review_status_check CHECK ((review_status = ANY (ARRAY['proposed'::text, 'approved'::text, 'rejected'::text, 'vetoed'::text]))),
    CONSTRAINT decision_lessons_source_check CHECK ((source = ANY (ARRAY['distillation'::text, 'curator'::text, 'chair'::text, 'panel'::text]))),
    CONSTRAINT decision_lessons_text_check CHECK ((btrim(text) <> ''::text))
);

--
-- Name: decision_lessons_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.decision_lessons ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.decision_lessons_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: decision_scans; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.decision_scans (
    id bigint NOT NULL,
    kind text NOT NULL,
    case_number text NOT NULL,
    file_sha256 text NOT NULL,
    source_name text NOT NULL,
    fields jsonb DEFAULT '{}'::jsonb NOT NULL,
    actor_kind text NOT NULL,
    actor_name text NOT NULL,
    status text DEFAULT 'waiting'::text NOT NULL,
    error text,
    error_code text,
    result jsonb,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    claimed_at timestamp with time zone,
    finished_at timestamp with time zone,
    CONSTRAINT decision_scans_actor_kind_check CHECK ((actor_kind = ANY (ARRAY['chair'::text, 'agent'::text, 'operator'::text]))),
    CONSTRAINT decision_scans_actor_name_check CHECK ((btrim(actor_name) <> ''::text)),
    CONSTRAINT decision_scans_case_number_check CHECK ((btrim(case_number) <> ''::text)),
    CONSTRAINT decision_scans_error_code_check CHECK ((error_code ~ '^[a-z_]+(\.[a-z_]+)*$'::text)),
    CONSTRAINT decision_scans_fields_check CHECK ((jsonb_typeof(fields) = 'object'::text)),
    CONSTRAINT decision_scans_kind_check CHECK ((kind = ANY (ARRAY['draft'::text, 'final'::text]))),
    CONSTRAINT decision_scans_source_name_check CHECK (((btrim(source_name) <> ''::text) AND (length(source_name) <= 300))),
    CONSTRAINT decision_scans_status_check CHECK ((status = ANY (ARRAY['waiting'::text, 'running'::text, 'done'::text, 'failed'::text]))),
    CONSTRAINT failed_says_why CHECK (((status <> 'failed'::text) OR ((error IS NOT NULL) AND (error_code IS NOT NULL)))),
    CONSTRAINT final_is_the_chairs CHECK (((kind = 'draft'::text) OR (actor_kind = ANY (ARRAY['chair'::text, 'operator'::text]))))
);

--
-- Name: decision_scans_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.decision_scans_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: decision_scans_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.decision_scans_id_seq OWNED BY public.decision_scans.id;

--
-- Name: deployment_settings; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.deployment_settings (
    name text NOT NULL,
    value integer NOT NULL,
    recorded_at timestamp with time zone DEFAULT now() NOT NULL,
    recorded_by text DEFAULT CURRENT_USER NOT NULL,
    CONSTRAINT deployment_settings_name_check CHECK ((name = 'halacha_panel_max_new'::text)),
    CONSTRAINT deployment_settings_value_check CHECK (((value >= 0) AND (value <= 50)))
);

--
-- Name: desk_login_failures; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.desk_login_failures (
    name text NOT NULL,
    client text NOT NULL,
    at timestamp with time zone DEFAULT now() NOT NULL
);

--
-- Name: desk_sessions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.desk_sessions (
    token_hash text NOT NULL,
    name text NOT NULL,
    csrf text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    last_seen timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    CONSTRAINT desk_sessions_token_hash_check CHECK ((token_hash ~ '^[0-9a-f]{64}$'::text))
);

--
-- Name: desk_users; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.desk_users (
    name text NOT NULL,
    password_hash text NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT desk_users_name_check CHECK ((name ~ '^[a-z][a-z0-9_-]{0,62}$'::text)),
    CONSTRAINT desk_users_password_hash_check CHECK ((password_hash ~~ '$argon2%'::text))
);

--
-- Name: digest_chunks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.digest_chunks (
    id bigint NOT NULL,
    digest_id bigint NOT NULL,
    ordinal integer NOT NULL,
    page integer,
    char_start integer NOT NULL,
    char_end integer NOT NULL,
    section text,
    text text NOT NULL,
    text_hash text NOT NULL,
    analyzed text NOT NULL,
    analyzer text NOT NULL,
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, analyzed)) STORED,
    embedding public.vector,
    embedder text,
    embedded_hash text,
    stale boolean GENERATED ALWAYS AS ((embedded_hash IS DISTINCT FROM text_hash)) STORED,
    term_freqs jsonb DEFAULT '{}'::jsonb NOT NULL,
    token_count integer DEFAULT 0 NOT NULL,
    chunk_total integer,
    CONSTRAINT digest_chunks_char_start_check CHECK ((char_start >= 0)),
    CONSTRAINT digest_chunks_check CHECK ((char_end > char_start)),
    CONSTRAINT digest_chunks_chunk_total_check CHECK ((chunk_total > 0))
);

--
-- Name: digest_chunks_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.digest_chunks ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.digest_chunks_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: digests; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.digests (
    id bigint NOT NULL,
    doc_type text DEFAULT 'digest'::text NOT NULL,
    doc_id text NOT NULL,
    title text,
    points_to text,
    case_law_id bigint,
    publisher text,
    published_on date,
    practice_area text,
    source_path text,
    source_format text,
    content text DEFAULT ''::text NOT NULL,
    page_starts integer[],
    content_hash text NOT NULL,
    file_sha256 text,
    extraction_issue text,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    version integer DEFAULT 1 NOT NULL,
    missing text[] DEFAULT '{}'::text[] NOT NULL,
    searchable boolean DEFAULT false NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    points_to_key text,
    CONSTRAINT digests_doc_id_check CHECK ((btrim(doc_id) <> ''::text)),
    CONSTRAINT digests_doc_type_check CHECK ((doc_type = 'digest'::text))
);

--
-- Name: digests_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.digests ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.digests_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: document_chunks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.document_chunks (
    id bigint NOT NULL,
    corpus text NOT NULL,
    document_id bigint NOT NULL,
    ordinal integer NOT NULL,
    page integer,
    char_start integer NOT NULL,
    char_end integer NOT NULL,
    section text,
    text text NOT NULL,
    text_hash text NOT NULL,
    analyzed text NOT NULL,
    analyzer text NOT NULL,
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, analyzed)) STORED,
    embedding public.vector,
    embedder text,
    embedded_hash text,
    stale boolean GENERATED ALWAYS AS ((embedded_hash IS DISTINCT FROM text_hash)) STORED,
    term_freqs jsonb DEFAULT '{}'::jsonb NOT NULL,
    token_count integer DEFAULT 0 NOT NULL,
    chunk_total integer,
    practice_area text,
    CONSTRAINT document_chunks_char_start_check CHECK ((char_start >= 0)),
    CONSTRAINT document_chunks_check CHECK ((char_end > char_start)),
    CONSTRAINT document_chunks_chunk_total_check CHECK ((chunk_total > 0))
)
PARTITION BY LIST (corpus);

--
-- Name: document_chunks_case; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.document_chunks_case (
    id bigint CONSTRAINT document_chunks_id_not_null NOT NULL,
    corpus text CONSTRAINT document_chunks_corpus_not_null NOT NULL,
    document_id bigint CONSTRAINT document_chunks_document_id_not_null NOT NULL,
    ordinal integer CONSTRAINT document_chunks_ordinal_not_null NOT NULL,
    page integer,
    char_start integer CONSTRAINT document_chunks_char_start_not_null NOT NULL,
    char_end integer CONSTRAINT document_chunks_char_end_not_null NOT NULL,
    section text,
    text text CONSTRAINT document_chunks_text_not_null NOT NULL,
    text_hash text CONSTRAINT document_chunks_text_hash_not_null NOT NULL,
    analyzed text CONSTRAINT document_chunks_analyzed_not_null NOT NULL,
    analyzer text CONSTRAINT document_chunks_analyzer_not_null NOT NULL,
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, analyzed)) STORED,
    embedding public.vector,
    embedder text,
    embedded_hash text,
    stale boolean GENERATED ALWAYS AS ((embedded_hash IS DISTINCT FROM text_hash)) STORED,
    term_freqs jsonb DEFAULT '{}'::jsonb CONSTRAINT document_chunks_term_freqs_not_null NOT NULL,
    token_count integer DEFAULT 0 CONSTRAINT document_chunks_token_count_not_null NOT NULL,
    chunk_total integer,
    practice_area text,
    CONSTRAINT document_chunks_char_start_check CHECK ((char_start >= 0)),
    CONSTRAINT document_chunks_check CHECK ((char_end > char_start)),
    CONSTRAINT document_chunks_chunk_total_check CHECK ((chunk_total > 0))
);

--
-- Name: document_chunks_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.document_chunks ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.document_chunks_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: document_chunks_style; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.document_chunks_style (
    id bigint CONSTRAINT document_chunks_id_not_null NOT NULL,
    corpus text CONSTRAINT document_chunks_corpus_not_null NOT NULL,
    document_id bigint CONSTRAINT document_chunks_document_id_not_null NOT NULL,
    ordinal integer CONSTRAINT document_chunks_ordinal_not_null NOT NULL,
    page integer,
    char_start integer CONSTRAINT document_chunks_char_start_not_null NOT NULL,
    char_end integer CONSTRAINT document_chunks_char_end_not_null NOT NULL,
    section text,
    text text CONSTRAINT document_chunks_text_not_null NOT NULL,
    text_hash text CONSTRAINT document_chunks_text_hash_not_null NOT NULL,
    analyzed text CONSTRAINT document_chunks_analyzed_not_null NOT NULL,
    analyzer text CONSTRAINT document_chunks_analyzer_not_null NOT NULL,
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, analyzed)) STORED,
    embedding public.vector,
    embedder text,
    embedded_hash text,
    stale boolean GENERATED ALWAYS AS ((embedded_hash IS DISTINCT FROM text_hash)) STORED,
    term_freqs jsonb DEFAULT '{}'::jsonb CONSTRAINT document_chunks_term_freqs_not_null NOT NULL,
    token_count integer DEFAULT 0 CONSTRAINT document_chunks_token_count_not_null NOT NULL,
    chunk_total integer,
    practice_area text,
    CONSTRAINT document_chunks_char_start_check CHECK ((char_start >= 0)),
    CONSTRAINT document_chunks_check CHECK ((char_end > char_start)),
    CONSTRAINT document_chunks_chunk_total_check CHECK ((chunk_total > 0))
);

--
-- Name: document_page_images; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.document_page_images (
    id bigint NOT NULL,
    corpus text NOT NULL,
    document_id bigint NOT NULL,
    page integer NOT NULL,
    text_hash text NOT NULL,
    embedding public.vector,
    embedder text,
    embedded_hash text,
    stale boolean GENERATED ALWAYS AS ((embedded_hash IS DISTINCT FROM text_hash)) STORED,
    CONSTRAINT document_page_images_page_check CHECK ((page >= 1))
)
PARTITION BY LIST (corpus);

--
-- Name: document_page_images_case; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.document_page_images_case (
    id bigint CONSTRAINT document_page_images_id_not_null NOT NULL,
    corpus text CONSTRAINT document_page_images_corpus_not_null NOT NULL,
    document_id bigint CONSTRAINT document_page_images_document_id_not_null NOT NULL,
    page integer CONSTRAINT document_page_images_page_not_null NOT NULL,
    text_hash text CONSTRAINT document_page_images_text_hash_not_null NOT NULL,
    embedding public.vector,
    embedder text,
    embedded_hash text,
    stale boolean GENERATED ALWAYS AS ((embedded_hash IS DISTINCT FROM text_hash)) STORED,
    CONSTRAINT document_page_images_page_check CHECK ((page >= 1))
);

--
-- Name: document_page_images_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.document_page_images ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.document_page_images_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: document_page_images_style; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.document_page_images_style (
    id bigint CONSTRAINT document_page_images_id_not_null NOT NULL,
    corpus text CONSTRAINT document_page_images_corpus_not_null NOT NULL,
    document_id bigint CONSTRAINT document_page_images_document_id_not_null NOT NULL,
    page integer CONSTRAINT document_page_images_page_not_null NOT NULL,
    text_hash text CONSTRAINT document_page_images_text_hash_not_null NOT NULL,
    embedding public.vector,
    embedder text,
    embedded_hash text,
    stale boolean GENERATED ALWAYS AS ((embedded_hash IS DISTINCT FROM text_hash)) STORED,
    CONSTRAINT document_page_images_page_check CHECK ((page >= 1))
);

--
-- Name: documents; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.documents (
    id bigint NOT NULL,
    corpus text NOT NULL,
    doc_type text DEFAULT 'document'::text NOT NULL,
    doc_id text NOT NULL,
    case_number text,
    practice_area text,
    title text,
    source_path text,
    source_format text,
    content text DEFAULT ''::text NOT NULL,
    page_starts integer[],
    content_hash text NOT NULL,
    file_sha256 text,
    extraction_issue text,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    version integer DEFAULT 1 NOT NULL,
    missing text[] DEFAULT '{}'::text[] NOT NULL,
    searchable boolean DEFAULT false NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    decided_on date,
    CONSTRAINT documents_corpus_check CHECK ((corpus = ANY (ARRAY['case'::text, 'style'::text]))),
    CONSTRAINT documents_doc_id_check CHECK ((btrim(doc_id) <> ''::text)),
    CONSTRAINT documents_doc_type_check CHECK ((doc_type = 'document'::text))
);

--
-- Name: documents_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.documents ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.documents_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: draft_final_pairs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.draft_final_pairs (
    id bigint NOT NULL,
    case_number text NOT NULL,
    status text NOT NULL,
    draft_id bigint,
    style_document_id bigint,
    case_law_id bigint,
    final_version integer,
    final_blocks jsonb,
    analysis jsonb,
    status_changed_at timestamp with time zone DEFAULT now() NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT analyzed_has_both CHECK (((status <> ALL (ARRAY['analyzed'::text, 'lessons_folded'::text])) OR ((draft_id IS NOT NULL) AND (case_law_id IS NOT NULL)))),
    CONSTRAINT draft_final_pairs_status_check CHECK ((status = ANY (ARRAY['draft_done'::text, 'final_received'::text, 'analyzed'::text, 'lessons_folded'::text]))),
    CONSTRAINT final_has_rows CHECK (((status = 'draft_done'::text) OR ((case_law_id IS NOT NULL) AND (style_document_id IS NOT NULL))))
);

--
-- Name: draft_final_pairs_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.draft_final_pairs ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.draft_final_pairs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: draft_originals; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.draft_originals (
    draft_id bigint NOT NULL,
    file_sha256 text NOT NULL
);

--
-- Name: drafts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.drafts (
    id bigint NOT NULL,
    case_number text NOT NULL,
    version integer NOT NULL,
    content text NOT NULL,
    content_hash text NOT NULL,
    blocks jsonb NOT NULL,
    missing_blocks text[] DEFAULT '{}'::text[] NOT NULL,
    appeal_type text,
    outcome text,
    practice_area text,
    source_path text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    copy_report jsonb,
    copy_checked_at timestamp with time zone,
    CONSTRAINT drafts_content_check CHECK ((btrim(content) <> ''::text)),
    CONSTRAINT drafts_copy_report_check CHECK (((copy_report IS NULL) OR (jsonb_typeof(copy_report) = 'object'::text))),
    CONSTRAINT drafts_version_check CHECK ((version > 0))
);

--
-- Name: drafts_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.drafts ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.drafts_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: embedding_cache; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.embedding_cache (
    embedder text NOT NULL,
    text_hash text NOT NULL,
    embedding public.vector NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    written_by text DEFAULT 'unknown (before migration 0036)'::text NOT NULL,
    by_system boolean DEFAULT false NOT NULL
);

--
-- Name: embedding_config; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.embedding_config (
    singleton boolean DEFAULT true NOT NULL,
    embedder text NOT NULL,
    dim integer NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT embedding_config_dim_check CHECK ((dim > 0)),
    CONSTRAINT embedding_config_singleton_check CHECK (singleton)
);

--
-- Name: eval_history; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.eval_history (
    dataset text NOT NULL,
    day date NOT NULL,
    fingerprint text NOT NULL,
    ndcg_at_10 double precision NOT NULL,
    recall_at_100 double precision,
    n_queries integer NOT NULL,
    n_docs integer NOT NULL,
    config jsonb DEFAULT '{}'::jsonb NOT NULL,
    recorded_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT eval_history_dataset_check CHECK ((btrim(dataset) <> ''::text)),
    CONSTRAINT eval_history_n_docs_check CHECK ((n_docs >= 0)),
    CONSTRAINT eval_history_n_queries_check CHECK ((n_queries >= 0)),
    CONSTRAINT eval_history_ndcg_at_10_check CHECK (((ndcg_at_10 >= (0)::double precision) AND (ndcg_at_10 <= (1)::double precision))),
    CONSTRAINT eval_history_recall_at_100_check CHECK (((recall_at_100 >= (0)::double precision) AND (recall_at_100 <= (1)::double precision)))
);

--
-- Name: feedback_lessons; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.feedback_lessons (
    feedback_id bigint NOT NULL,
    lesson_id bigint NOT NULL,
    proposed_by text DEFAULT CURRENT_USER NOT NULL,
    proposed_at timestamp with time zone DEFAULT now() NOT NULL
);

--
-- Name: item_versions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.item_versions (
    id bigint NOT NULL,
    item_table text NOT NULL,
    item_id bigint NOT NULL,
    corpus text NOT NULL,
    doc_id text NOT NULL,
    case_number text,
    version integer NOT NULL,
    content text NOT NULL,
    content_hash text NOT NULL,
    page_starts integer[],
    source_path text,
    recorded_at timestamp with time zone DEFAULT now() NOT NULL,
    recorded_by text DEFAULT CURRENT_USER NOT NULL,
    CONSTRAINT item_versions_item_table_check CHECK ((item_table = ANY (ARRAY['documents'::text, 'case_law'::text, 'digests'::text])))
);

--
-- Name: item_versions_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.item_versions ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.item_versions_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: jobs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.jobs (
    id bigint NOT NULL,
    kind text NOT NULL,
    case_number text,
    key text NOT NULL,
    status text DEFAULT 'queued'::text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    max_attempts integer DEFAULT 3 NOT NULL,
    run_after timestamp with time zone DEFAULT now() NOT NULL,
    lease_until timestamp with time zone,
    worker text,
    waiting_for text,
    result jsonb,
    error text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    started_at timestamp with time zone,
    finished_at timestamp with time zone,
    CONSTRAINT finished_has_time CHECK (((status <> ALL (ARRAY['done'::text, 'failed'::text])) OR (finished_at IS NOT NULL))),
    CONSTRAINT jobs_attempts_check CHECK ((attempts >= 0)),
    CONSTRAINT jobs_kind_check CHECK ((kind = ANY (ARRAY['learning'::text, 'principles'::text, 'enrichment'::text, 'ocr'::text]))),
    CONSTRAINT jobs_max_attempts_check CHECK ((max_attempts > 0)),
    CONSTRAINT jobs_status_check CHECK ((status = ANY (ARRAY['queued'::text, 'running'::text, 'waiting'::text, 'done'::text, 'failed'::text]))),
    CONSTRAINT running_has_lease CHECK (((status <> 'running'::text) OR (lease_until IS NOT NULL)))
);

--
-- Name: jobs_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.jobs ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.jobs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: learning_audit; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.learning_audit (
    id bigint NOT NULL,
    at timestamp with time zone DEFAULT now() NOT NULL,
    actor text NOT NULL,
    action text NOT NULL,
    lesson_id bigint,
    case_number text,
    from_status text,
    to_status text,
    reason text,
    details jsonb DEFAULT '{}'::jsonb NOT NULL,
    db_role text DEFAULT CURRENT_USER NOT NULL,
    principle_id bigint,
    request_id text DEFAULT "left"(NULLIF(current_setting('legal_ai.request_id'::text, true), ''::text), 128)
);

--
-- Name: learning_audit_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.learning_audit ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.learning_audit_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: lesson_categories; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.lesson_categories (
    category text NOT NULL,
    kind text NOT NULL,
    label_he text NOT NULL,
    CONSTRAINT lesson_categories_kind_check CHECK ((kind = ANY (ARRAY['style'::text, 'substance'::text])))
);

--
-- Name: lexical_area_df; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.lexical_area_df (
    source text NOT NULL,
    term text NOT NULL,
    practice_area text NOT NULL,
    df integer NOT NULL
);

--
-- Name: lexical_postings; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.lexical_postings (
    source text NOT NULL,
    term text NOT NULL,
    unit_id bigint NOT NULL,
    tf integer NOT NULL,
    token_count integer NOT NULL,
    practice_area text DEFAULT ''::text NOT NULL,
    CONSTRAINT lexical_postings_tf_check CHECK ((tf > 0)),
    CONSTRAINT lexical_postings_token_count_check CHECK ((token_count >= 0))
);

--
-- Name: lexicon; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.lexicon (
    source text NOT NULL,
    term text NOT NULL,
    df integer NOT NULL
);

--
-- Name: lexicon_size; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.lexicon_size (
    source text NOT NULL,
    units integer NOT NULL,
    tokens bigint DEFAULT 0 NOT NULL
);

--
-- Name: library_rekeys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.library_rekeys (
    id bigint NOT NULL,
    status text DEFAULT 'pending'::text NOT NULL,
    report jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    done_at timestamp with time zone,
    seen_at timestamp with time zone,
    seen_by text,
    CONSTRAINT library_rekeys_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'done'::text])))
);

--
-- Name: library_rekeys_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.library_rekeys ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.library_rekeys_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: methodology_profile_versions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.methodology_profile_versions (
    appeal_type text NOT NULL,
    version integer NOT NULL,
    profile jsonb NOT NULL,
    updated_by text NOT NULL,
    reason text,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

--
-- Name: methodology_profiles; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.methodology_profiles (
    appeal_type text NOT NULL,
    version integer DEFAULT 1 NOT NULL,
    profile jsonb NOT NULL,
    updated_by text NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT methodology_profiles_appeal_type_check CHECK ((appeal_type = ANY (ARRAY['universal'::text, 'permit'::text, 'change_of_use'::text, 'plan'::text, 'betterment_levy'::text, 'compensation_197'::text, 'procedural'::text])))
);

--
-- Name: missing_precedents; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.missing_precedents (
    id bigint NOT NULL,
    authority_id bigint NOT NULL,
    status text DEFAULT 'open'::text NOT NULL,
    first_cited_in text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    resolved_at timestamp with time zone,
    CONSTRAINT missing_precedents_status_check CHECK ((status = ANY (ARRAY['open'::text, 'resolved'::text, 'ambiguous'::text])))
);

--
-- Name: missing_precedents_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.missing_precedents ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.missing_precedents_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: model_calls; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.model_calls (
    id bigint NOT NULL,
    at timestamp with time zone DEFAULT now() NOT NULL,
    stage text NOT NULL,
    provider text NOT NULL,
    model text NOT NULL,
    base_url text,
    case_number text,
    job_id bigint,
    prompt_hash text NOT NULL,
    attempt integer DEFAULT 1 NOT NULL,
    tokens_in integer,
    tokens_out integer,
    latency_ms integer NOT NULL,
    outcome text NOT NULL,
    error text,
    db_role text DEFAULT CURRENT_USER NOT NULL,
    request_id text DEFAULT "left"(NULLIF(current_setting('legal_ai.request_id'::text, true), ''::text), 128),
    CONSTRAINT model_calls_attempt_check CHECK ((attempt > 0)),
    CONSTRAINT model_calls_latency_ms_check CHECK ((latency_ms >= 0)),
    CONSTRAINT model_calls_model_check CHECK ((btrim(model) <> ''::text)),
    CONSTRAINT model_calls_outcome_check CHECK ((outcome = ANY (ARRAY['ok'::text, 'invalid'::text, 'error'::text, 'timeout'::text, 'rate_limited'::text, 'refused'::text]))),
    CONSTRAINT model_calls_provider_check CHECK ((provider = ANY (ARRAY['anthropic'::text, 'openai'::text, 'gemini'::text]))),
    CONSTRAINT model_calls_stage_check CHECK ((btrim(stage) <> ''::text))
);

--
-- Name: model_calls_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.model_calls ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.model_calls_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: original_files; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.original_files (
    file_sha256 text NOT NULL,
    content bytea NOT NULL,
    bytes integer GENERATED ALWAYS AS (length(content)) STORED,
    file_name text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT content_is_its_hash CHECK ((encode(sha256(content), 'hex'::text) = file_sha256)),
    CONSTRAINT original_files_content_check CHECK (((length(content) >= 1) AND (length(content) <= 33554432))),
    CONSTRAINT original_files_file_name_check CHECK (((btrim(file_name) <> ''::text) AND (length(file_name) <= 255))),
    CONSTRAINT original_files_file_sha256_check CHECK ((file_sha256 ~ '^[0-9a-f]{64}$'::text))
);

--
-- Name: panel_verdicts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.panel_verdicts (
    id bigint NOT NULL,
    lesson_id bigint NOT NULL,
    model text NOT NULL,
    vote text NOT NULL,
    reason text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    model_call_id bigint,
    CONSTRAINT panel_verdicts_model_check CHECK ((btrim(model) <> ''::text)),
    CONSTRAINT panel_verdicts_vote_check CHECK ((vote = ANY (ARRAY['approve'::text, 'reject'::text])))
);

--
-- Name: panel_verdicts_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.panel_verdicts ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.panel_verdicts_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: principle_votes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.principle_votes (
    id bigint NOT NULL,
    principle_id bigint NOT NULL,
    source_kind text NOT NULL,
    model text NOT NULL,
    model_call_id bigint NOT NULL,
    voted boolean NOT NULL,
    score double precision,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    reason text,
    CONSTRAINT principle_vote_reason_of_a_vote CHECK ((voted OR (reason IS NULL))),
    CONSTRAINT principle_vote_reason_text CHECK (((reason IS NULL) OR ((btrim(reason) <> ''::text) AND (length(reason) <= 2000)))),
    CONSTRAINT principle_votes_check CHECK (((NOT voted) OR (score IS NOT NULL))),
    CONSTRAINT principle_votes_model_check CHECK ((btrim(model) <> ''::text)),
    CONSTRAINT principle_votes_score_check CHECK (((score >= (0)::double precision) AND (score <= (1)::double precision)))
);

--
-- Name: principle_votes_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.principle_votes ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.principle_votes_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: scanned_files; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.scanned_files (
    file_sha256 text NOT NULL,
    pdf bytea NOT NULL,
    bytes integer GENERATED ALWAYS AS (length(pdf)) STORED,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    engine text,
    content text,
    page_starts integer[],
    page_confidence jsonb,
    read_at timestamp with time zone,
    CONSTRAINT read_whole CHECK ((((read_at IS NULL) AND (content IS NULL) AND (engine IS NULL) AND (page_confidence IS NULL)) OR ((read_at IS NOT NULL) AND (content IS NOT NULL) AND (engine IS NOT NULL) AND (page_confidence IS NOT NULL) AND (page_starts IS NOT NULL)))),
    CONSTRAINT scanned_files_file_sha256_check CHECK ((file_sha256 ~ '^[0-9a-f]{64}$'::text)),
    CONSTRAINT scanned_files_page_confidence_check CHECK (((page_confidence IS NULL) OR (jsonb_typeof(page_confidence) = 'array'::text))),
    CONSTRAINT scanned_files_pdf_check CHECK ((length(pdf) > 0))
);

--
-- Name: schedule_runs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.schedule_runs (
    id bigint NOT NULL,
    name text NOT NULL,
    trigger text NOT NULL,
    scheduled_for timestamp with time zone,
    missed integer DEFAULT 0 NOT NULL,
    started_at timestamp with time zone NOT NULL,
    finished_at timestamp with time zone NOT NULL,
    outcome text NOT NULL,
    result jsonb,
    error text,
    worker text,
    requested_by text NOT NULL,
    CONSTRAINT schedule_run_ends_after_start CHECK ((finished_at >= started_at)),
    CONSTRAINT schedule_run_error CHECK (((outcome = 'failed'::text) = (error IS NOT NULL))),
    CONSTRAINT schedule_run_slot CHECK (((trigger = 'schedule'::text) = (scheduled_for IS NOT NULL))),
    CONSTRAINT schedule_runs_missed_check CHECK ((missed >= 0)),
    CONSTRAINT schedule_runs_outcome_check CHECK ((outcome = ANY (ARRAY['ok'::text, 'failed'::text, 'skipped'::text]))),
    CONSTRAINT schedule_runs_trigger_check CHECK ((trigger = ANY (ARRAY['schedule'::text, 'manual'::text])))
);

--
-- Name: schedule_runs_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.schedule_runs ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.schedule_runs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: schedules; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.schedules (
    name text NOT NULL,
    cron text NOT NULL,
    timezone text NOT NULL,
    next_run_at timestamp with time zone NOT NULL,
    last_started_at timestamp with time zone,
    last_finished_at timestamp with time zone,
    last_outcome text,
    last_result jsonb,
    last_error text,
    failures integer DEFAULT 0 NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT schedules_cron_check CHECK ((btrim(cron) <> ''::text)),
    CONSTRAINT schedules_failures_check CHECK ((failures >= 0)),
    CONSTRAINT schedules_last_outcome_check CHECK ((last_outcome = ANY (ARRAY['ok'::text, 'failed'::text, 'skipped'::text]))),
    CONSTRAINT schedules_name_check CHECK ((name ~ '^[a-z][a-z0-9-]*$'::text)),
    CONSTRAINT schedules_timezone_check CHECK ((btrim(timezone) <> ''::text))
);

--
-- Name: schema_migrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.schema_migrations (
    version integer NOT NULL,
    name text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);

--
-- Name: search_log; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.search_log (
    id bigint NOT NULL,
    at timestamp with time zone DEFAULT now() NOT NULL,
    surface text NOT NULL,
    actor text NOT NULL,
    actor_kind text NOT NULL,
    corpus text NOT NULL,
    tool text,
    query text NOT NULL,
    by_example boolean DEFAULT false NOT NULL,
    filters jsonb DEFAULT '{}'::jsonb NOT NULL,
    mode text NOT NULL,
    k integer NOT NULL,
    hits jsonb DEFAULT '[]'::jsonb NOT NULL,
    n_hits integer NOT NULL,
    latency_ms real NOT NULL,
    request_id text DEFAULT "left"(NULLIF(current_setting('legal_ai.request_id'::text, true), ''::text), 128),
    CONSTRAINT search_log_actor_check CHECK (((btrim(actor) <> ''::text) AND (length(actor) <= 200))),
    CONSTRAINT search_log_actor_kind_check CHECK ((actor_kind = ANY (ARRAY['chair'::text, 'agent'::text, 'operator'::text]))),
    CONSTRAINT search_log_filters_check CHECK ((jsonb_typeof(filters) = 'object'::text)),
    CONSTRAINT search_log_hits_check CHECK ((jsonb_typeof(hits) = 'array'::text)),
    CONSTRAINT search_log_k_check CHECK ((k >= 1)),
    CONSTRAINT search_log_latency_ms_check CHECK ((latency_ms >= (0)::double precision)),
    CONSTRAINT search_log_n_hits_check CHECK ((n_hits >= 0)),
    CONSTRAINT search_log_query_check CHECK ((length(query) <= 2000)),
    CONSTRAINT search_log_surface_check CHECK ((surface = ANY (ARRAY['cli'::text, 'mcp'::text, 'api'::text, 'desk'::text])))
);

--
-- Name: search_log_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.search_log ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.search_log_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: search_marks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.search_marks (
    id bigint NOT NULL,
    search_id bigint NOT NULL,
    rank integer NOT NULL,
    kind text NOT NULL,
    doc_id text NOT NULL,
    unit_kind text,
    unit_id bigint,
    actor text NOT NULL,
    at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT search_marks_kind_check CHECK ((kind = ANY (ARRAY['click'::text, 'useful'::text]))),
    CONSTRAINT search_marks_rank_check CHECK ((rank >= 1))
);

--
-- Name: search_marks_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.search_marks ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.search_marks_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: style_distance_history; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.style_distance_history (
    id bigint NOT NULL,
    pair_id bigint NOT NULL,
    case_number text NOT NULL,
    final_version integer NOT NULL,
    captured_at timestamp with time zone DEFAULT now() NOT NULL,
    appeal_type text,
    outcome text,
    anti_pattern_total integer NOT NULL,
    final_anti_pattern_total integer NOT NULL,
    ratio_deviation double precision,
    change_percent double precision NOT NULL,
    word_edit_distance integer NOT NULL,
    stylometric_delta double precision,
    profile_finals integer NOT NULL,
    lesson_pool_size integer NOT NULL,
    held_out boolean NOT NULL,
    metrics jsonb NOT NULL,
    methodology_size integer,
    CONSTRAINT style_distance_history_methodology_size_check CHECK ((methodology_size >= 0))
);

--
-- Name: style_distance_history_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.style_distance_history ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.style_distance_history_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: synthesis_attempts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.synthesis_attempts (
    id bigint NOT NULL,
    canonical_id bigint NOT NULL,
    at timestamp with time zone DEFAULT now() NOT NULL,
    model text NOT NULL,
    outcome text NOT NULL,
    cosine double precision,
    reason text,
    statement text,
    CONSTRAINT synthesis_attempts_outcome_check CHECK ((outcome = ANY (ARRAY['accepted'::text, 'kept_source'::text, 'abstained'::text, 'drift_rejected'::text])))
);

--
-- Name: synthesis_attempts_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.synthesis_attempts ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.synthesis_attempts_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: template_state; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.template_state (
    singleton boolean DEFAULT true NOT NULL,
    fingerprint text NOT NULL,
    finals integer NOT NULL,
    shares jsonb DEFAULT '{}'::jsonb NOT NULL,
    computed_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT template_state_singleton_check CHECK (singleton)
);

--
-- Name: treatments; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.treatments (
    id bigint NOT NULL,
    by_case_law_id bigint NOT NULL,
    cited_ref text NOT NULL,
    cited_number text,
    cited_text text NOT NULL,
    case_law_id bigint,
    relation text NOT NULL,
    kind text,
    read_by text NOT NULL,
    sentence text NOT NULL,
    char_start integer NOT NULL,
    char_end integer NOT NULL,
    review_status text DEFAULT 'unconfirmed'::text NOT NULL,
    reviewed_by text,
    reviewed_at timestamp with time zone,
    review_reason text,
    written_role text DEFAULT CURRENT_USER NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT treatments_char_start_check CHECK ((char_start >= 0)),
    CONSTRAINT treatments_check CHECK ((char_end >= char_start)),
    CONSTRAINT treatments_check1 CHECK (((relation = 'attacked'::text) = (kind IS NOT NULL))),
    CONSTRAINT treatments_check2 CHECK ((case_law_id IS DISTINCT FROM by_case_law_id)),
    CONSTRAINT treatments_cited_ref_check CHECK ((btrim(cited_ref) <> ''::text)),
    CONSTRAINT treatments_kind_check CHECK ((kind = ANY (ARRAY['set_aside'::text, 'upheld'::text, 'partly_set_aside'::text, 'returned'::text, 'unknown'::text]))),
    CONSTRAINT treatments_read_by_check CHECK (((read_by = 'rule'::text) OR (read_by ~ '^model:.+'::text))),
    CONSTRAINT treatments_relation_check CHECK ((relation = ANY (ARRAY['attacked'::text, 'cited'::text]))),
    CONSTRAINT treatments_review_status_check CHECK ((review_status = ANY (ARRAY['unconfirmed'::text, 'confirmed'::text, 'rejected'::text])))
);

--
-- Name: treatments_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.treatments ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.treatments_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: voice_documents; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.voice_documents (
    id bigint NOT NULL,
    case_number text NOT NULL,
    status text DEFAULT 'queued'::text NOT NULL,
    marked_by text NOT NULL,
    marked_at timestamp with time zone DEFAULT now() NOT NULL,
    note text,
    style_document_id bigint,
    doc_id text,
    final_hash text,
    document jsonb,
    claims integer,
    dropped_claims integer DEFAULT 0 NOT NULL,
    substance_claims integer DEFAULT 0 NOT NULL,
    model text,
    written_by text,
    written_at timestamp with time zone,
    refusals integer DEFAULT 0 NOT NULL,
    last_refusal text,
    reviewed_by text,
    reviewed_at timestamp with time zone,
    review_reason text,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT voice_documents_claims_check CHECK ((claims >= 0)),
    CONSTRAINT voice_documents_dropped_claims_check CHECK ((dropped_claims >= 0)),
    CONSTRAINT voice_documents_note_check CHECK ((btrim(note) <> ''::text)),
    CONSTRAINT voice_documents_refusals_check CHECK ((refusals >= 0)),
    CONSTRAINT voice_documents_status_check CHECK ((status = ANY (ARRAY['queued'::text, 'pending_review'::text, 'approved'::text, 'rejected'::text]))),
    CONSTRAINT voice_documents_substance_claims_check CHECK ((substance_claims >= 0)),
    CONSTRAINT voice_written_has_document CHECK (((status = 'queued'::text) OR ((document IS NOT NULL) AND (claims IS NOT NULL) AND (final_hash IS NOT NULL))))
);

--
-- Name: voice_documents_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.voice_documents ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.voice_documents_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: case_law_chunks_external; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.case_law_chunks ATTACH PARTITION public.case_law_chunks_external FOR VALUES IN ('external_upload');

--
-- Name: case_law_chunks_internal; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.case_law_chunks ATTACH PARTITION public.case_law_chunks_internal FOR VALUES IN ('internal_committee');

--
-- Name: case_law_page_images_external; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.case_law_page_images ATTACH PARTITION public.case_law_page_images_external FOR VALUES IN ('external_upload');

--
-- Name: case_law_page_images_internal; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.case_law_page_images ATTACH PARTITION public.case_law_page_images_internal FOR VALUES IN ('internal_committee');

--
-- Name: case_law_principles_external; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.case_law_principles ATTACH PARTITION public.case_law_principles_external FOR VALUES IN ('external_upload');

--
-- Name: case_law_principles_internal; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.case_law_principles ATTACH PARTITION public.case_law_principles_internal FOR VALUES IN ('internal_committee');

--
-- Name: document_chunks_case; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.document_chunks ATTACH PARTITION public.document_chunks_case FOR VALUES IN ('case');

--
-- Name: document_chunks_style; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.document_chunks ATTACH PARTITION public.document_chunks_style FOR VALUES IN ('style');

--
-- Name: document_page_images_case; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.document_page_images ATTACH PARTITION public.document_page_images_case FOR VALUES IN ('case');

--
-- Name: document_page_images_style; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.document_page_images ATTACH PARTITION public.document_page_images_style FOR VALUES IN ('style');

--
-- Name: decision_scans id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.decision_scans ALTER COLUMN id SET DEFAULT nextval('public.decision_scans_id_seq'::regclass);

--
-- Name: authorities authorities_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.authorities
    ADD CONSTRAINT authorities_pkey PRIMARY KEY (id);

--
-- Name: authorities authorities_ref_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.authorities
    ADD CONSTRAINT authorities_ref_key UNIQUE (ref);

--
-- Name: block_exemplars block_exemplars_document_id_block_ordinal_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.block_exemplars
    ADD CONSTRAINT block_exemplars_document_id_block_ordinal_key UNIQUE (document_id, block, ordinal);

--
-- Name: block_exemplars block_exemplars_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.block_exemplars
    ADD CONSTRAINT block_exemplars_pkey PRIMARY KEY (id);

--
-- Name: block_templates block_templates_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.block_templates
    ADD CONSTRAINT block_templates_pkey PRIMARY KEY (id);

--
-- Name: canonical_principles canonical_principles_id_source_kind_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.canonical_principles
    ADD CONSTRAINT canonical_principles_id_source_kind_key UNIQUE (id, source_kind);

--
-- Name: canonical_principles canonical_principles_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.canonical_principles
    ADD CONSTRAINT canonical_principles_pkey PRIMARY KEY (id);

--
-- Name: canonical_statement_versions canonical_statement_versions_canonical_id_version_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.canonical_statement_versions
    ADD CONSTRAINT canonical_statement_versions_canonical_id_version_key UNIQUE (canonical_id, version);

--
-- Name: canonical_statement_versions canonical_statement_versions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.canonical_statement_versions
    ADD CONSTRAINT canonical_statement_versions_pkey PRIMARY KEY (id);

--
-- Name: case_law_chunks case_law_chunks_case_law_id_ordinal_source_kind_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.case_law_chunks
    ADD CONSTRAINT case_law_chunks_case_law_id_ordinal_source_kind_key UNIQUE (case_law_id, ordinal, source_kind);

--
-- Name: case_law_chunks_external case_law_chunks_external_case_law_id_ordinal_source_kind_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.case_law_chunks_external
    ADD CONSTRAINT case_law_chunks_external_case_law_id_ordinal_source_kind_key UNIQUE (case_law_id, ordinal, source_kind);

--
-- Name: case_law_chunks case_law_chunks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.case_law_chunks
    ADD CONSTRAINT case_law_chunks_pkey PRIMARY KEY (id, source_kind);

--
-- Name: case_law_chunks_external case_law_chunks_external_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.case_law_chunks_external
    ADD CONSTRAINT case_law_chunks_external_pkey PRIMARY KEY (id, source_kind);

--
-- Name: case_law_chunks_internal case_law_chunks_internal_case_law_id_ordinal_source_kind_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.case_law_chunks_internal
    ADD CONSTRAINT case_law_chunks_internal_case_law_id_ordinal_source_kind_key UNIQUE (case_law_id, ordinal, source_kind);

--
-- Name: case_law_chunks_internal case_law_chunks_internal_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.case_law_chunks_internal
    ADD CONSTRAINT case_law_chunks_internal_pkey PRIMARY KEY (id, source_kind);

--
-- Name: case_law_enrichments case_law_enrichments_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.case_law_enrichments
    ADD CONSTRAINT case_law_enrichments_pkey PRIMARY KEY (id);

--
-- Name: case_law case_law_id_source_kind_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.case_law
    ADD CONSTRAINT case_law_id_source_kind_key UNIQUE (id, source_kind);

--
-- Name: case_law_page_images case_law_page_images_case_law_id_page_source_kind_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.case_law_page_images
    ADD CONSTRAINT case_law_page_images_case_law_id_page_source_kind_key UNIQUE (case_law_id, page, source_kind);

--
-- Name: case_law_page_images_external case_law_page_images_external_case_law_id_page_source_kind_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.case_law_page_images_external
    ADD CONSTRAINT case_law_page_images_external_case_law_id_page_source_kind_key UNIQUE (case_law_id, page, source_kind);

--
-- Name: case_law_page_images case_law_page_images_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.case_law_page_images
    ADD CONSTRAINT case_law_page_images_pkey PRIMARY KEY (id, source_kind);

--
-- Name: case_law_page_images_external case_law_page_images_external_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.case_law_page_images_external
    ADD CONSTRAINT case_law_page_images_external_pkey PRIMARY KEY (id, source_kind);

--
-- Name: case_law_page_images_internal case_law_page_images_internal_case_law_id_page_source_kind_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.case_law_page_images_internal
    ADD CONSTRAINT case_law_page_images_internal_case_law_id_page_source_kind_key UNIQUE (case_law_id, page, source_kind);

--
-- Name: case_law_page_images_internal case_law_page_images_internal_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.case_law_page_images_internal
    ADD CONSTRAINT case_law_page_images_internal_pkey PRIMARY KEY (id, source_kind);

--
-- Name: case_law case_law_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.case_law
    ADD CONSTRAINT case_law_pkey PRIMARY KEY (id);

--
-- Name: case_law_principles case_law_principles_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.case_law_principles
    ADD CONSTRAINT case_law_principles_pkey PRIMARY KEY (id, source_kind);

--
-- Name: case_law_principles_external case_law_principles_external_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.case_law_principles_external
    ADD CONSTRAINT case_law_principles_external_pkey PRIMARY KEY (id, source_kind);

--
-- Name: case_law_principles_internal case_law_principles_internal_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.case_law_principles_internal
    ADD CONSTRAINT case_law_principles_internal_pkey PRIMARY KEY (id, source_kind);

--
-- Name: case_law case_law_source_kind_doc_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.case_law
    ADD CONSTRAINT case_law_source_kind_doc_id_key UNIQUE (source_kind, doc_id);

--
-- Name: case_precedents case_precedents_case_number_citation_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.case_precedents
    ADD CONSTRAINT case_precedents_case_number_citation_key_key UNIQUE (case_number, citation_key);

--
-- Name: case_precedents case_precedents_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.case_precedents
    ADD CONSTRAINT case_precedents_pkey PRIMARY KEY (id);

--
-- Name: case_status case_status_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.case_status
    ADD CONSTRAINT case_status_pkey PRIMARY KEY (case_number);

--
-- Name: cases cases_case_number_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.cases
    ADD CONSTRAINT cases_case_number_key UNIQUE (case_number);

--
-- Name: cases cases_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.cases
    ADD CONSTRAINT cases_pkey PRIMARY KEY (id);

--
-- Name: chair_feedback chair_feedback_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.chair_feedback
    ADD CONSTRAINT chair_feedback_pkey PRIMARY KEY (id);

--
-- Name: cite_reports cite_reports_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.cite_reports
    ADD CONSTRAINT cite_reports_pkey PRIMARY KEY (id);

--
-- Name: copy_fingerprints copy_fingerprints_case_law_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.copy_fingerprints
    ADD CONSTRAINT copy_fingerprints_case_law_id_key UNIQUE (case_law_id);

--
-- Name: copy_fingerprints copy_fingerprints_document_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.copy_fingerprints
    ADD CONSTRAINT copy_fingerprints_document_id_key UNIQUE (document_id);

--
-- Name: copy_fingerprints copy_fingerprints_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.copy_fingerprints
    ADD CONSTRAINT copy_fingerprints_pkey PRIMARY KEY (id);

--
-- Name: corpus_requirements corpus_requirements_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.corpus_requirements
    ADD CONSTRAINT corpus_requirements_pkey PRIMARY KEY (corpus, doc_type, field);

--
-- Name: decision_blocks decision_blocks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.decision_blocks
    ADD CONSTRAINT decision_blocks_pkey PRIMARY KEY (block);

--
-- Name: decision_blocks decision_blocks_position_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.decision_blocks
    ADD CONSTRAINT decision_blocks_position_key UNIQUE ("position");

--
-- Name: decision_citations decision_citations_citing_case_law_id_char_start_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.decision_citations
    ADD CONSTRAINT decision_citations_citing_case_law_id_char_start_key UNIQUE (citing_case_law_id, char_start);

--
-- Name: decision_citations decision_citations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.decision_citations
    ADD CONSTRAINT decision_citations_pkey PRIMARY KEY (id);

--
-- Name: decision_lessons decision_lessons_dedupe_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.decision_lessons
    ADD CONSTRAINT decision_lessons_dedupe_key_key UNIQUE (dedupe_key);

--
-- Name: decision_lessons decision_lessons_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.decision_lessons
    ADD CONSTRAINT decision_lessons_pkey PRIMARY KEY (id);

--
-- Name: decision_scans decision_scans_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.decision_scans
    ADD CONSTRAINT decision_scans_pkey PRIMARY KEY (id);

--
-- Name: deployment_settings deployment_settings_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deployment_settings
    ADD CONSTRAINT deployment_settings_pkey PRIMARY KEY (name);

--
-- Name: desk_sessions desk_sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.desk_sessions
    ADD CONSTRAINT desk_sessions_pkey PRIMARY KEY (token_hash);

--
-- Name: desk_users desk_users_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.desk_users
    ADD CONSTRAINT desk_users_pkey PRIMARY KEY (name);

--
-- Name: digest_chunks digest_chunks_digest_id_ordinal_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.digest_chunks
    ADD CONSTRAINT digest_chunks_digest_id_ordinal_key UNIQUE (digest_id, ordinal);

--
-- Name: digest_chunks digest_chunks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.digest_chunks
    ADD CONSTRAINT digest_chunks_pkey PRIMARY KEY (id);

--
-- Name: digests digests_doc_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.digests
    ADD CONSTRAINT digests_doc_id_key UNIQUE (doc_id);

--
-- Name: digests digests_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.digests
    ADD CONSTRAINT digests_pkey PRIMARY KEY (id);

--
-- Name: document_chunks document_chunks_document_id_ordinal_corpus_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.document_chunks
    ADD CONSTRAINT document_chunks_document_id_ordinal_corpus_key UNIQUE (document_id, ordinal, corpus);

--
-- Name: document_chunks_case document_chunks_case_document_id_ordinal_corpus_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.document_chunks_case
    ADD CONSTRAINT document_chunks_case_document_id_ordinal_corpus_key UNIQUE (document_id, ordinal, corpus);

--
-- Name: document_chunks document_chunks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.document_chunks
    ADD CONSTRAINT document_chunks_pkey PRIMARY KEY (id, corpus);

--
-- Name: document_chunks_case document_chunks_case_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.document_chunks_case
    ADD CONSTRAINT document_chunks_case_pkey PRIMARY KEY (id, corpus);

--
-- Name: document_chunks_style document_chunks_style_document_id_ordinal_corpus_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.document_chunks_style
    ADD CONSTRAINT document_chunks_style_document_id_ordinal_corpus_key UNIQUE (document_id, ordinal, corpus);

--
-- Name: document_chunks_style document_chunks_style_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.document_chunks_style
    ADD CONSTRAINT document_chunks_style_pkey PRIMARY KEY (id, corpus);

--
-- Name: document_page_images document_page_images_document_id_page_corpus_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.document_page_images
    ADD CONSTRAINT document_page_images_document_id_page_corpus_key UNIQUE (document_id, page, corpus);

--
-- Name: document_page_images_case document_page_images_case_document_id_page_corpus_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.document_page_images_case
    ADD CONSTRAINT document_page_images_case_document_id_page_corpus_key UNIQUE (document_id, page, corpus);

--
-- Name: document_page_images document_page_images_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.document_page_images
    ADD CONSTRAINT document_page_images_pkey PRIMARY KEY (id, corpus);

--
-- Name: document_page_images_case document_page_images_case_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.document_page_images_case
    ADD CONSTRAINT document_page_images_case_pkey PRIMARY KEY (id, corpus);

--
-- Name: document_page_images_style document_page_images_style_document_id_page_corpus_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.document_page_images_style
    ADD CONSTRAINT document_page_images_style_document_id_page_corpus_key UNIQUE (document_id, page, corpus);

--
-- Name: document_page_images_style document_page_images_style_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.document_page_images_style
    ADD CONSTRAINT document_page_images_style_pkey PRIMARY KEY (id, corpus);

--
-- Name: documents documents_corpus_doc_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.documents
    ADD CONSTRAINT documents_corpus_doc_id_key UNIQUE (corpus, doc_id);

--
-- Name: documents documents_id_corpus_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.documents
    ADD CONSTRAINT documents_id_corpus_key UNIQUE (id, corpus);

--
-- Name: documents documents_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.documents
    ADD CONSTRAINT documents_pkey PRIMARY KEY (id);

--
-- Name: draft_final_pairs draft_final_pairs_case_number_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.draft_final_pairs
    ADD CONSTRAINT draft_final_pairs_case_number_key UNIQUE (case_number);

--
-- Name: draft_final_pairs draft_final_pairs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.draft_final_pairs
    ADD CONSTRAINT draft_final_pairs_pkey PRIMARY KEY (id);

--
-- Name: draft_originals draft_originals_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.draft_originals
    ADD CONSTRAINT draft_originals_pkey PRIMARY KEY (draft_id);

--
-- Name: drafts drafts_case_number_content_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.drafts
    ADD CONSTRAINT drafts_case_number_content_hash_key UNIQUE (case_number, content_hash);

--
-- Name: drafts drafts_case_number_version_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.drafts
    ADD CONSTRAINT drafts_case_number_version_key UNIQUE (case_number, version);

--
-- Name: drafts drafts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.drafts
    ADD CONSTRAINT drafts_pkey PRIMARY KEY (id);

--
-- Name: embedding_cache embedding_cache_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.embedding_cache
    ADD CONSTRAINT embedding_cache_pkey PRIMARY KEY (embedder, text_hash);

--
-- Name: embedding_config embedding_config_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.embedding_config
    ADD CONSTRAINT embedding_config_pkey PRIMARY KEY (singleton);

--
-- Name: eval_history eval_history_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.eval_history
    ADD CONSTRAINT eval_history_pkey PRIMARY KEY (dataset, day);

--
-- Name: feedback_lessons feedback_lessons_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.feedback_lessons
    ADD CONSTRAINT feedback_lessons_pkey PRIMARY KEY (feedback_id);

--
-- Name: item_versions item_versions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.item_versions
    ADD CONSTRAINT item_versions_pkey PRIMARY KEY (id);

--
-- Name: jobs jobs_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT jobs_key_key UNIQUE (key);

--
-- Name: jobs jobs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT jobs_pkey PRIMARY KEY (id);

--
-- Name: learning_audit learning_audit_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.learning_audit
    ADD CONSTRAINT learning_audit_pkey PRIMARY KEY (id);

--
-- Name: lesson_categories lesson_categories_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.lesson_categories
    ADD CONSTRAINT lesson_categories_pkey PRIMARY KEY (category);

--
-- Name: lexical_area_df lexical_area_df_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.lexical_area_df
    ADD CONSTRAINT lexical_area_df_pkey PRIMARY KEY (source, term, practice_area);

--
-- Name: lexicon lexicon_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.lexicon
    ADD CONSTRAINT lexicon_pkey PRIMARY KEY (source, term);

--
-- Name: lexicon_size lexicon_size_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.lexicon_size
    ADD CONSTRAINT lexicon_size_pkey PRIMARY KEY (source);

--
-- Name: library_rekeys library_rekeys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.library_rekeys
    ADD CONSTRAINT library_rekeys_pkey PRIMARY KEY (id);

--
-- Name: methodology_profile_versions methodology_profile_versions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.methodology_profile_versions
    ADD CONSTRAINT methodology_profile_versions_pkey PRIMARY KEY (appeal_type, version);

--
-- Name: methodology_profiles methodology_profiles_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.methodology_profiles
    ADD CONSTRAINT methodology_profiles_pkey PRIMARY KEY (appeal_type);

--
-- Name: missing_precedents missing_precedents_authority_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.missing_precedents
    ADD CONSTRAINT missing_precedents_authority_id_key UNIQUE (authority_id);

--
-- Name: missing_precedents missing_precedents_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.missing_precedents
    ADD CONSTRAINT missing_precedents_pkey PRIMARY KEY (id);

--
-- Name: model_calls model_calls_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.model_calls
    ADD CONSTRAINT model_calls_pkey PRIMARY KEY (id);

--
-- Name: original_files original_files_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.original_files
    ADD CONSTRAINT original_files_pkey PRIMARY KEY (file_sha256);

--
-- Name: panel_verdicts panel_verdicts_one_per_call; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.panel_verdicts
    ADD CONSTRAINT panel_verdicts_one_per_call UNIQUE (model_call_id);

--
-- Name: panel_verdicts panel_verdicts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.panel_verdicts
    ADD CONSTRAINT panel_verdicts_pkey PRIMARY KEY (id);

--
-- Name: principle_votes principle_votes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.principle_votes
    ADD CONSTRAINT principle_votes_pkey PRIMARY KEY (id);

--
-- Name: principle_votes principle_votes_principle_id_model_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.principle_votes
    ADD CONSTRAINT principle_votes_principle_id_model_key UNIQUE (principle_id, model);

--
-- Name: scanned_files scanned_files_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.scanned_files
    ADD CONSTRAINT scanned_files_pkey PRIMARY KEY (file_sha256);

--
-- Name: schedule_runs schedule_runs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schedule_runs
    ADD CONSTRAINT schedule_runs_pkey PRIMARY KEY (id);

--
-- Name: schedules schedules_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schedules
    ADD CONSTRAINT schedules_pkey PRIMARY KEY (name);

--
-- Name: schema_migrations schema_migrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (version);

--
-- Name: search_log search_log_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.search_log
    ADD CONSTRAINT search_log_pkey PRIMARY KEY (id);

--
-- Name: search_marks search_marks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.search_marks
    ADD CONSTRAINT search_marks_pkey PRIMARY KEY (id);

--
-- Name: search_marks search_marks_search_id_rank_kind_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.search_marks
    ADD CONSTRAINT search_marks_search_id_rank_kind_key UNIQUE (search_id, rank, kind);

--
-- Name: style_distance_history style_distance_history_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.style_distance_history
    ADD CONSTRAINT style_distance_history_pkey PRIMARY KEY (id);

--
-- Name: synthesis_attempts synthesis_attempts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.synthesis_attempts
    ADD CONSTRAINT synthesis_attempts_pkey PRIMARY KEY (id);

--
-- Name: template_state template_state_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.template_state
    ADD CONSTRAINT template_state_pkey PRIMARY KEY (singleton);

--
-- Name: treatments treatments_by_case_law_id_cited_ref_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.treatments
    ADD CONSTRAINT treatments_by_case_law_id_cited_ref_key UNIQUE (by_case_law_id, cited_ref);

--
-- Name: treatments treatments_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.treatments
    ADD CONSTRAINT treatments_pkey PRIMARY KEY (id);

--
-- Name: voice_documents voice_documents_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.voice_documents
    ADD CONSTRAINT voice_documents_pkey PRIMARY KEY (id);

--
-- Name: authorities_case_law_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX authorities_case_law_idx ON public.authorities USING btree (case_law_id) WHERE (case_law_id IS NOT NULL);

--
-- Name: block_exemplars_block_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX block_exemplars_block_idx ON public.block_exemplars USING btree (block, appeal_type, outcome);

--
-- Name: block_exemplars_case_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX block_exemplars_case_idx ON public.block_exemplars USING btree (case_number);

--
-- Name: block_exemplars_tsv_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX block_exemplars_tsv_idx ON public.block_exemplars USING gin (tsv);

--
-- Name: block_templates_block_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX block_templates_block_idx ON public.block_templates USING btree (block);

--
-- Name: case_law_aliases_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX case_law_aliases_idx ON public.case_law USING gin (aliases);

--
-- Name: case_law_area_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX case_law_area_idx ON public.case_law USING btree (source_kind, practice_area) WHERE (practice_area IS NOT NULL);

--
-- Name: case_law_case_number_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX case_law_case_number_idx ON public.case_law USING btree (case_number);

--
-- Name: case_law_chunks_external_e5_local_hnsw; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX case_law_chunks_external_e5_local_hnsw ON public.case_law_chunks_external USING hnsw (((embedding)::public.vector(384)) public.vector_cosine_ops) WHERE (embedder = 'e5-local'::text);

--
-- Name: case_law_chunks_external_parent_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX case_law_chunks_external_parent_idx ON public.case_law_chunks_external USING btree (case_law_id);

--
-- Name: case_law_chunks_external_tsv_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX case_law_chunks_external_tsv_idx ON public.case_law_chunks_external USING gin (tsv);

--
-- Name: case_law_chunks_external_voyage_hnsw; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX case_law_chunks_external_voyage_hnsw ON public.case_law_chunks_external USING hnsw (((embedding)::public.vector(1024)) public.vector_cosine_ops) WHERE (embedder = 'voyage'::text);

--
-- Name: case_law_chunks_internal_e5_local_hnsw; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX case_law_chunks_internal_e5_local_hnsw ON public.case_law_chunks_internal USING hnsw (((embedding)::public.vector(384)) public.vector_cosine_ops) WHERE (embedder = 'e5-local'::text);

--
-- Name: case_law_chunks_internal_parent_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX case_law_chunks_internal_parent_idx ON public.case_law_chunks_internal USING btree (case_law_id);

--
-- Name: case_law_chunks_internal_tsv_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX case_law_chunks_internal_tsv_idx ON public.case_law_chunks_internal USING gin (tsv);

--
-- Name: case_law_chunks_internal_voyage_hnsw; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX case_law_chunks_internal_voyage_hnsw ON public.case_law_chunks_internal USING hnsw (((embedding)::public.vector(1024)) public.vector_cosine_ops) WHERE (embedder = 'voyage'::text);

--
-- Name: case_law_eid_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX case_law_eid_idx ON public.case_law USING btree (eid) WHERE (eid IS NOT NULL);

--
-- Name: case_law_enrichments_item_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX case_law_enrichments_item_idx ON public.case_law_enrichments USING btree (case_law_id, id);

--
-- Name: case_law_enrichments_pending_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX case_law_enrichments_pending_idx ON public.case_law_enrichments USING btree (case_law_id) WHERE (status = 'pending_review'::text);

--
-- Name: case_law_enrichments_status_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX case_law_enrichments_status_idx ON public.case_law_enrichments USING btree (status, id);

--
-- Name: case_law_file_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX case_law_file_idx ON public.case_law USING btree (source_kind, file_sha256);

--
-- Name: case_law_page_images_external_mm_hnsw; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX case_law_page_images_external_mm_hnsw ON public.case_law_page_images_external USING hnsw (((embedding)::public.vector(1024)) public.vector_cosine_ops) WHERE (embedder = 'voyage-multimodal'::text);

--
-- Name: case_law_page_images_external_parent_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX case_law_page_images_external_parent_idx ON public.case_law_page_images_external USING btree (case_law_id);

--
-- Name: case_law_page_images_internal_mm_hnsw; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX case_law_page_images_internal_mm_hnsw ON public.case_law_page_images_internal USING hnsw (((embedding)::public.vector(1024)) public.vector_cosine_ops) WHERE (embedder = 'voyage-multimodal'::text);

--
-- Name: case_law_page_images_internal_parent_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX case_law_page_images_internal_parent_idx ON public.case_law_page_images_internal USING btree (case_law_id);

--
-- Name: case_law_principles_canonical_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX case_law_principles_canonical_idx ON ONLY public.case_law_principles USING btree (canonical_id);

--
-- Name: case_law_principles_external_canonical_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX case_law_principles_external_canonical_id_idx ON public.case_law_principles_external USING btree (canonical_id);

--
-- Name: case_law_principles_external_e5_local_hnsw; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX case_law_principles_external_e5_local_hnsw ON public.case_law_principles_external USING hnsw (((embedding)::public.vector(384)) public.vector_cosine_ops) WHERE (embedder = 'e5-local'::text);

--
-- Name: case_law_principles_external_parent_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX case_law_principles_external_parent_idx ON public.case_law_principles_external USING btree (case_law_id);

--
-- Name: case_law_principles_external_tsv_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX case_law_principles_external_tsv_idx ON public.case_law_principles_external USING gin (tsv);

--
-- Name: case_law_principles_external_voyage_hnsw; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX case_law_principles_external_voyage_hnsw ON public.case_law_principles_external USING hnsw (((embedding)::public.vector(1024)) public.vector_cosine_ops) WHERE (embedder = 'voyage'::text);

--
-- Name: case_law_principles_internal_canonical_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX case_law_principles_internal_canonical_id_idx ON public.case_law_principles_internal USING btree (canonical_id);

--
-- Name: case_law_principles_internal_e5_local_hnsw; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX case_law_principles_internal_e5_local_hnsw ON public.case_law_principles_internal USING hnsw (((embedding)::public.vector(384)) public.vector_cosine_ops) WHERE (embedder = 'e5-local'::text);

--
-- Name: case_law_principles_internal_parent_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX case_law_principles_internal_parent_idx ON public.case_law_principles_internal USING btree (case_law_id);

--
-- Name: case_law_principles_internal_tsv_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX case_law_principles_internal_tsv_idx ON public.case_law_principles_internal USING gin (tsv);

--
-- Name: case_law_principles_internal_voyage_hnsw; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX case_law_principles_internal_voyage_hnsw ON public.case_law_principles_internal USING hnsw (((embedding)::public.vector(1024)) public.vector_cosine_ops) WHERE (embedder = 'voyage'::text);

--
-- Name: case_law_ruling_number_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX case_law_ruling_number_idx ON public.case_law USING btree (ruling_number) WHERE (ruling_number IS NOT NULL);

--
-- Name: case_precedents_e5_local_hnsw; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX case_precedents_e5_local_hnsw ON public.case_precedents USING hnsw (((embedding)::public.vector(384)) public.vector_cosine_ops) WHERE (embedder = 'e5-local'::text);

--
-- Name: case_precedents_tsv_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX case_precedents_tsv_idx ON public.case_precedents USING gin (tsv);

--
-- Name: case_precedents_voyage_hnsw; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX case_precedents_voyage_hnsw ON public.case_precedents USING hnsw (((embedding)::public.vector(1024)) public.vector_cosine_ops) WHERE (embedder = 'voyage'::text);

--
-- Name: case_status_unpushed_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX case_status_unpushed_idx ON public.case_status USING btree (case_number) WHERE (pushed_status IS DISTINCT FROM status);

--
-- Name: cases_created_role_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX cases_created_role_idx ON public.cases USING btree (created_role, created_at) WHERE (created_role IS NOT NULL);

--
-- Name: chair_feedback_created_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX chair_feedback_created_idx ON public.chair_feedback USING btree (created_at);

--
-- Name: cite_reports_draft_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX cite_reports_draft_idx ON public.cite_reports USING btree (draft_id, id);

--
-- Name: cite_reports_final_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX cite_reports_final_idx ON public.cite_reports USING btree (case_law_id, version, id);

--
-- Name: decision_citations_authority_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX decision_citations_authority_idx ON public.decision_citations USING btree (authority_id);

--
-- Name: decision_lessons_open_proposer_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX decision_lessons_open_proposer_idx ON public.decision_lessons USING btree (proposed_by) WHERE (review_status = 'proposed'::text);

--
-- Name: decision_lessons_open_role_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX decision_lessons_open_role_idx ON public.decision_lessons USING btree (proposed_role) WHERE (review_status = 'proposed'::text);

--
-- Name: decision_lessons_status_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX decision_lessons_status_idx ON public.decision_lessons USING btree (review_status, appeal_type);

--
-- Name: decision_scans_case; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX decision_scans_case ON public.decision_scans USING btree (case_number, created_at DESC);

--
-- Name: decision_scans_open; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX decision_scans_open ON public.decision_scans USING btree (file_sha256) WHERE (status = ANY (ARRAY['waiting'::text, 'running'::text]));

--
-- Name: desk_login_failures_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX desk_login_failures_idx ON public.desk_login_failures USING btree (name, client, at);

--
-- Name: desk_sessions_expires_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX desk_sessions_expires_idx ON public.desk_sessions USING btree (expires_at);

--
-- Name: desk_sessions_name_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX desk_sessions_name_idx ON public.desk_sessions USING btree (name);

--
-- Name: digest_chunks_e5_local_hnsw; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX digest_chunks_e5_local_hnsw ON public.digest_chunks USING hnsw (((embedding)::public.vector(384)) public.vector_cosine_ops) WHERE (embedder = 'e5-local'::text);

--
-- Name: digest_chunks_parent_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX digest_chunks_parent_idx ON public.digest_chunks USING btree (digest_id);

--
-- Name: digest_chunks_tsv_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX digest_chunks_tsv_idx ON public.digest_chunks USING gin (tsv);

--
-- Name: digest_chunks_voyage_hnsw; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX digest_chunks_voyage_hnsw ON public.digest_chunks USING hnsw (((embedding)::public.vector(1024)) public.vector_cosine_ops) WHERE (embedder = 'voyage'::text);

--
-- Name: digests_file_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX digests_file_idx ON public.digests USING btree (file_sha256);

--
-- Name: digests_points_to_key_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX digests_points_to_key_idx ON public.digests USING btree (points_to_key) WHERE (case_law_id IS NULL);

--
-- Name: document_chunks_case_e5_local_hnsw; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX document_chunks_case_e5_local_hnsw ON public.document_chunks_case USING hnsw (((embedding)::public.vector(384)) public.vector_cosine_ops) WHERE (embedder = 'e5-local'::text);

--
-- Name: document_chunks_case_parent_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX document_chunks_case_parent_idx ON public.document_chunks_case USING btree (document_id);

--
-- Name: document_chunks_case_tsv_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX document_chunks_case_tsv_idx ON public.document_chunks_case USING gin (tsv);

--
-- Name: document_chunks_case_voyage_hnsw; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX document_chunks_case_voyage_hnsw ON public.document_chunks_case USING hnsw (((embedding)::public.vector(1024)) public.vector_cosine_ops) WHERE (embedder = 'voyage'::text);

--
-- Name: document_chunks_style_e5_local_hnsw; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX document_chunks_style_e5_local_hnsw ON public.document_chunks_style USING hnsw (((embedding)::public.vector(384)) public.vector_cosine_ops) WHERE (embedder = 'e5-local'::text);

--
-- Name: document_chunks_style_parent_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX document_chunks_style_parent_idx ON public.document_chunks_style USING btree (document_id);

--
-- Name: document_chunks_style_tsv_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX document_chunks_style_tsv_idx ON public.document_chunks_style USING gin (tsv);

--
-- Name: document_chunks_style_voyage_hnsw; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX document_chunks_style_voyage_hnsw ON public.document_chunks_style USING hnsw (((embedding)::public.vector(1024)) public.vector_cosine_ops) WHERE (embedder = 'voyage'::text);

--
-- Name: document_page_images_case_mm_hnsw; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX document_page_images_case_mm_hnsw ON public.document_page_images_case USING hnsw (((embedding)::public.vector(1024)) public.vector_cosine_ops) WHERE (embedder = 'voyage-multimodal'::text);

--
-- Name: document_page_images_case_parent_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX document_page_images_case_parent_idx ON public.document_page_images_case USING btree (document_id);

--
-- Name: document_page_images_style_mm_hnsw; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX document_page_images_style_mm_hnsw ON public.document_page_images_style USING hnsw (((embedding)::public.vector(1024)) public.vector_cosine_ops) WHERE (embedder = 'voyage-multimodal'::text);

--
-- Name: document_page_images_style_parent_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX document_page_images_style_parent_idx ON public.document_page_images_style USING btree (document_id);

--
-- Name: documents_area_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX documents_area_idx ON public.documents USING btree (corpus, practice_area) WHERE (practice_area IS NOT NULL);

--
-- Name: documents_case_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX documents_case_idx ON public.documents USING btree (case_number);

--
-- Name: documents_decided_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX documents_decided_idx ON public.documents USING btree (corpus, decided_on);

--
-- Name: documents_file_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX documents_file_idx ON public.documents USING btree (corpus, file_sha256);

--
-- Name: feedback_lessons_lesson_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX feedback_lessons_lesson_idx ON public.feedback_lessons USING btree (lesson_id);

--
-- Name: item_versions_doc_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX item_versions_doc_idx ON public.item_versions USING btree (doc_id);

--
-- Name: item_versions_item_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX item_versions_item_idx ON public.item_versions USING btree (item_table, item_id, id);

--
-- Name: jobs_case_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_case_idx ON public.jobs USING btree (case_number);

--
-- Name: jobs_kind_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_kind_idx ON public.jobs USING btree (kind, status);

--
-- Name: jobs_ready_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_ready_idx ON public.jobs USING btree (run_after) WHERE (status = ANY (ARRAY['queued'::text, 'running'::text]));

--
-- Name: learning_audit_request_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX learning_audit_request_idx ON public.learning_audit USING btree (request_id) WHERE (request_id IS NOT NULL);

--
-- Name: lexical_postings_term_area; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX lexical_postings_term_area ON public.lexical_postings USING btree (source, term, practice_area, unit_id) INCLUDE (tf, token_count);

--
-- Name: model_calls_job_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX model_calls_job_idx ON public.model_calls USING btree (job_id);

--
-- Name: model_calls_request_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX model_calls_request_idx ON public.model_calls USING btree (request_id) WHERE (request_id IS NOT NULL);

--
-- Name: model_calls_stage_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX model_calls_stage_idx ON public.model_calls USING btree (stage, at);

--
-- Name: principle_votes_principle_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX principle_votes_principle_idx ON public.principle_votes USING btree (principle_id);

--
-- Name: schedule_runs_name_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX schedule_runs_name_idx ON public.schedule_runs USING btree (name, id DESC);

--
-- Name: search_log_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX search_log_at_idx ON public.search_log USING btree (at);

--
-- Name: search_log_request_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX search_log_request_idx ON public.search_log USING btree (request_id) WHERE (request_id IS NOT NULL);

--
-- Name: synthesis_attempts_canonical_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX synthesis_attempts_canonical_idx ON public.synthesis_attempts USING btree (canonical_id, at);

--
-- Name: treatments_case_law_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX treatments_case_law_idx ON public.treatments USING btree (case_law_id) WHERE (case_law_id IS NOT NULL);

--
-- Name: treatments_cited_number_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX treatments_cited_number_idx ON public.treatments USING btree (cited_number);

--
-- Name: treatments_unconfirmed_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX treatments_unconfirmed_idx ON public.treatments USING btree (id) WHERE ((relation = 'attacked'::text) AND (review_status = 'unconfirmed'::text) AND (case_law_id IS NOT NULL));

--
-- Name: voice_documents_open_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX voice_documents_open_idx ON public.voice_documents USING btree (case_number) WHERE (status = ANY (ARRAY['queued'::text, 'pending_review'::text, 'approved'::text]));

--
-- Name: voice_documents_status_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX voice_documents_status_idx ON public.voice_documents USING btree (status, id);

--
-- Name: case_law_chunks_external_case_law_id_ordinal_source_kind_key; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.case_law_chunks_case_law_id_ordinal_source_kind_key ATTACH PARTITION public.case_law_chunks_external_case_law_id_ordinal_source_kind_key;

--
-- Name: case_law_chunks_external_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.case_law_chunks_pkey ATTACH PARTITION public.case_law_chunks_external_pkey;

--
-- Name: case_law_chunks_internal_case_law_id_ordinal_source_kind_key; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.case_law_chunks_case_law_id_ordinal_source_kind_key ATTACH PARTITION public.case_law_chunks_internal_case_law_id_ordinal_source_kind_key;

--
-- Name: case_law_chunks_internal_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.case_law_chunks_pkey ATTACH PARTITION public.case_law_chunks_internal_pkey;

--
-- Name: case_law_page_images_external_case_law_id_page_source_kind_key; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.case_law_page_images_case_law_id_page_source_kind_key ATTACH PARTITION public.case_law_page_images_external_case_law_id_page_source_kind_key;

--
-- Name: case_law_page_images_external_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.case_law_page_images_pkey ATTACH PARTITION public.case_law_page_images_external_pkey;

--
-- Name: case_law_page_images_internal_case_law_id_page_source_kind_key; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.case_law_page_images_case_law_id_page_source_kind_key ATTACH PARTITION public.case_law_page_images_internal_case_law_id_page_source_kind_key;

--
-- Name: case_law_page_images_internal_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.case_law_page_images_pkey ATTACH PARTITION public.case_law_page_images_internal_pkey;

--
-- Name: case_law_principles_external_canonical_id_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.case_law_principles_canonical_idx ATTACH PARTITION public.case_law_principles_external_canonical_id_idx;

--
-- Name: case_law_principles_external_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.case_law_principles_pkey ATTACH PARTITION public.case_law_principles_external_pkey;

--
-- Name: case_law_principles_internal_canonical_id_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.case_law_principles_canonical_idx ATTACH PARTITION public.case_law_principles_internal_canonical_id_idx;

--
-- Name: case_law_principles_internal_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.case_law_principles_pkey ATTACH PARTITION public.case_law_principles_internal_pkey;

--
-- Name: document_chunks_case_document_id_ordinal_corpus_key; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.document_chunks_document_id_ordinal_corpus_key ATTACH PARTITION public.document_chunks_case_document_id_ordinal_corpus_key;

--
-- Name: document_chunks_case_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.document_chunks_pkey ATTACH PARTITION public.document_chunks_case_pkey;

--
-- Name: document_chunks_style_document_id_ordinal_corpus_key; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.document_chunks_document_id_ordinal_corpus_key ATTACH PARTITION public.document_chunks_style_document_id_ordinal_corpus_key;

--
-- Name: document_chunks_style_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.document_chunks_pkey ATTACH PARTITION public.document_chunks_style_pkey;

--
-- Name: document_page_images_case_document_id_page_corpus_key; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.document_page_images_document_id_page_corpus_key ATTACH PARTITION public.document_page_images_case_document_id_page_corpus_key;

--
-- Name: document_page_images_case_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.document_page_images_pkey ATTACH PARTITION public.document_page_images_case_pkey;

--
-- Name: document_page_images_style_document_id_page_corpus_key; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.document_page_images_document_id_page_corpus_key ATTACH PARTITION public.document_page_images_style_document_id_page_corpus_key;

--
-- Name: document_page_images_style_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.document_page_images_pkey ATTACH PARTITION public.document_page_images_style_pkey;

--
-- Name: chair_feedback a_row_id_by_database; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER a_row_id_by_database BEFORE INSERT ON public.chair_feedback FOR EACH ROW EXECUTE FUNCTION public.row_id_by_database();

--
-- Name: decision_lessons a_row_id_by_database; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER a_row_id_by_database BEFORE INSERT ON public.decision_lessons FOR EACH ROW EXECUTE FUNCTION public.row_id_by_database();

--
-- Name: drafts a_row_id_by_database; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER a_row_id_by_database BEFORE INSERT ON public.drafts FOR EACH ROW EXECUTE FUNCTION public.row_id_by_database();

--
-- Name: jobs a_row_id_by_database; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER a_row_id_by_database BEFORE INSERT ON public.jobs FOR EACH ROW EXECUTE FUNCTION public.row_id_by_database();

--
-- Name: learning_audit a_row_id_by_database; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER a_row_id_by_database BEFORE INSERT ON public.learning_audit FOR EACH ROW EXECUTE FUNCTION public.row_id_by_database();

--
-- Name: search_log a_row_id_by_database; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER a_row_id_by_database BEFORE INSERT ON public.search_log FOR EACH ROW EXECUTE FUNCTION public.row_id_by_database();

--
-- Name: authorities authorities_link_audit; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER authorities_link_audit AFTER UPDATE ON public.authorities FOR EACH ROW WHEN (((new.link_basis = 'chair'::text) AND ((old.link_basis IS DISTINCT FROM 'chair'::text) OR (old.case_law_id IS DISTINCT FROM new.case_law_id)))) EXECUTE FUNCTION public.authority_link_audit();

--
-- Name: authorities authorities_link_gate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER authorities_link_gate BEFORE UPDATE ON public.authorities FOR EACH ROW EXECUTE FUNCTION public.authority_link_gate();

--
-- Name: block_exemplars block_exemplars_fields; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER block_exemplars_fields BEFORE INSERT OR UPDATE ON public.block_exemplars FOR EACH ROW EXECUTE FUNCTION public.block_exemplar_fields();

--
-- Name: canonical_principles canonical_principles_gate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER canonical_principles_gate BEFORE INSERT OR UPDATE ON public.canonical_principles FOR EACH ROW EXECUTE FUNCTION public.canonical_gate();

--
-- Name: canonical_principles canonical_principles_record; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER canonical_principles_record AFTER INSERT OR UPDATE ON public.canonical_principles FOR EACH ROW EXECUTE FUNCTION public.canonical_record();

--
-- Name: canonical_principles canonical_statement_hash; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER canonical_statement_hash BEFORE INSERT OR UPDATE ON public.canonical_principles FOR EACH ROW EXECUTE FUNCTION public.canonical_statement_hash();

--
-- Name: canonical_statement_versions canonical_statement_versions_append_only; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER canonical_statement_versions_append_only BEFORE DELETE OR UPDATE ON public.canonical_statement_versions FOR EACH ROW EXECUTE FUNCTION public.refuse_change();

--
-- Name: canonical_statement_versions canonical_statement_versions_no_truncate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER canonical_statement_versions_no_truncate BEFORE TRUNCATE ON public.canonical_statement_versions FOR EACH STATEMENT EXECUTE FUNCTION public.refuse_truncate();

--
-- Name: canonical_statement_versions canonical_statement_versions_record; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER canonical_statement_versions_record BEFORE INSERT ON public.canonical_statement_versions FOR EACH ROW EXECUTE FUNCTION public.version_record();

--
-- Name: case_law_chunks case_law_chunks_lexicon_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_law_chunks_lexicon_del AFTER DELETE ON public.case_law_chunks REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.lexicon_apply('source_kind');

--
-- Name: case_law_chunks case_law_chunks_lexicon_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_law_chunks_lexicon_ins AFTER INSERT ON public.case_law_chunks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.lexicon_apply('source_kind');

--
-- Name: case_law_chunks case_law_chunks_lexicon_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_law_chunks_lexicon_upd AFTER UPDATE ON public.case_law_chunks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.lexicon_apply('source_kind');

--
-- Name: case_law_chunks case_law_chunks_postings_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_law_chunks_postings_del AFTER DELETE ON public.case_law_chunks REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.lexical_postings_apply('source_kind');

--
-- Name: case_law_chunks case_law_chunks_postings_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_law_chunks_postings_ins AFTER INSERT ON public.case_law_chunks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.lexical_postings_apply('source_kind');

--
-- Name: case_law_chunks case_law_chunks_postings_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_law_chunks_postings_upd AFTER UPDATE ON public.case_law_chunks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.lexical_postings_apply('source_kind');

--
-- Name: case_law_chunks case_law_chunks_practice_area; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_law_chunks_practice_area BEFORE INSERT OR UPDATE ON public.case_law_chunks FOR EACH ROW EXECUTE FUNCTION public.case_law_chunk_practice_area();

--
-- Name: case_law_chunks case_law_chunks_term_stats; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_law_chunks_term_stats BEFORE INSERT OR UPDATE ON public.case_law_chunks FOR EACH ROW EXECUTE FUNCTION public.case_law_chunk_meta();

--
-- Name: case_law_chunks case_law_chunks_touch_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_law_chunks_touch_del AFTER DELETE ON public.case_law_chunks REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.chunks_touch_parents('case_law', 'case_law_id');

--
-- Name: case_law_chunks case_law_chunks_touch_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_law_chunks_touch_ins AFTER INSERT ON public.case_law_chunks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.chunks_touch_parents('case_law', 'case_law_id');

--
-- Name: case_law_chunks case_law_chunks_touch_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_law_chunks_touch_upd AFTER UPDATE ON public.case_law_chunks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.chunks_touch_parents('case_law', 'case_law_id');

--
-- Name: case_law case_law_contract; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_law_contract BEFORE INSERT OR UPDATE ON public.case_law FOR EACH ROW EXECUTE FUNCTION public.item_contract('case_law_chunks', 'case_law_id', 'null');

--
-- Name: case_law case_law_enrichment_columns; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_law_enrichment_columns BEFORE INSERT OR UPDATE ON public.case_law FOR EACH ROW EXECUTE FUNCTION public.case_law_enrichment_columns();

--
-- Name: case_law_enrichments case_law_enrichments_gate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_law_enrichments_gate BEFORE INSERT OR UPDATE ON public.case_law_enrichments FOR EACH ROW EXECUTE FUNCTION public.enrichment_gate();

--
-- Name: case_law_enrichments case_law_enrichments_record; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_law_enrichments_record AFTER INSERT OR UPDATE ON public.case_law_enrichments FOR EACH ROW EXECUTE FUNCTION public.enrichment_record();

--
-- Name: case_law case_law_meta_changed; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_law_meta_changed AFTER UPDATE OF headnote, summary, tags ON public.case_law FOR EACH ROW WHEN ((old.meta_hash IS DISTINCT FROM new.meta_hash)) EXECUTE FUNCTION public.case_law_meta_changed();

--
-- Name: case_law case_law_practice_area_to_chunks; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_law_practice_area_to_chunks AFTER UPDATE ON public.case_law FOR EACH ROW WHEN ((old.practice_area IS DISTINCT FROM new.practice_area)) EXECUTE FUNCTION public.case_law_practice_area_to_chunks();

--
-- Name: case_law_principles case_law_principles_audit; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_law_principles_audit AFTER INSERT OR UPDATE ON public.case_law_principles FOR EACH ROW EXECUTE FUNCTION public.principle_audit();

--
-- Name: case_law_principles case_law_principles_cap; Type: TRIGGER; Schema: public; Owner: -
--

CREATE CONSTRAINT TRIGGER case_law_principles_cap AFTER INSERT ON public.case_law_principles DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (new.cap_counted) EXECUTE FUNCTION public.principle_cap_check();

--
-- Name: case_law_principles case_law_principles_cap_again; Type: TRIGGER; Schema: public; Owner: -
--

CREATE CONSTRAINT TRIGGER case_law_principles_cap_again AFTER UPDATE OF review_status, case_law_id ON public.case_law_principles DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN ((new.cap_counted AND ((new.case_law_id <> old.case_law_id) OR ((old.review_status = ANY (ARRAY['rejected'::text, 'vetoed'::text])) AND (new.review_status <> ALL (ARRAY['rejected'::text, 'vetoed'::text])))))) EXECUTE FUNCTION public.principle_cap_check();

--
-- Name: case_law_principles case_law_principles_cap_mark; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_law_principles_cap_mark BEFORE INSERT OR UPDATE ON public.case_law_principles FOR EACH ROW EXECUTE FUNCTION public.principle_cap_mark();

--
-- Name: case_law_principles case_law_principles_gate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_law_principles_gate BEFORE INSERT OR UPDATE ON public.case_law_principles FOR EACH ROW EXECUTE FUNCTION public.principle_gate();

--
-- Name: case_law_principles case_law_principles_lexicon_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_law_principles_lexicon_del AFTER DELETE ON public.case_law_principles REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.lexicon_apply('source_kind');

--
-- Name: case_law_principles case_law_principles_lexicon_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_law_principles_lexicon_ins AFTER INSERT ON public.case_law_principles REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.lexicon_apply('source_kind');

--
-- Name: case_law_principles case_law_principles_lexicon_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_law_principles_lexicon_upd AFTER UPDATE ON public.case_law_principles REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.lexicon_apply('source_kind');

--
-- Name: case_law_principles case_law_principles_postings_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_law_principles_postings_del AFTER DELETE ON public.case_law_principles REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.lexical_postings_apply('source_kind');

--
-- Name: case_law_principles case_law_principles_postings_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_law_principles_postings_ins AFTER INSERT ON public.case_law_principles REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.lexical_postings_apply('source_kind');

--
-- Name: case_law_principles case_law_principles_postings_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_law_principles_postings_upd AFTER UPDATE ON public.case_law_principles REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.lexical_postings_apply('source_kind');

--
-- Name: case_law_principles case_law_principles_reopen; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_law_principles_reopen BEFORE UPDATE OF review_status ON public.case_law_principles FOR EACH ROW EXECUTE FUNCTION public.principle_reopen_gate();

--
-- Name: case_law_principles case_law_principles_term_stats; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_law_principles_term_stats BEFORE INSERT OR UPDATE OF analyzed ON public.case_law_principles FOR EACH ROW EXECUTE FUNCTION public.unit_term_stats();

--
-- Name: case_law case_law_refile_postings; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_law_refile_postings AFTER UPDATE ON public.case_law FOR EACH ROW WHEN ((old.practice_area IS DISTINCT FROM new.practice_area)) EXECUTE FUNCTION public.lexical_postings_item();

--
-- Name: case_law case_law_unfile_postings; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_law_unfile_postings BEFORE DELETE ON public.case_law FOR EACH ROW EXECUTE FUNCTION public.lexical_postings_item();

--
-- Name: case_law case_law_versions; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_law_versions AFTER INSERT OR UPDATE ON public.case_law FOR EACH ROW EXECUTE FUNCTION public.record_item_version();

--
-- Name: case_precedents case_precedents_lexicon_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_precedents_lexicon_del AFTER DELETE ON public.case_precedents REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.lexicon_apply('');

--
-- Name: case_precedents case_precedents_lexicon_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_precedents_lexicon_ins AFTER INSERT ON public.case_precedents REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.lexicon_apply('');

--
-- Name: case_precedents case_precedents_lexicon_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_precedents_lexicon_upd AFTER UPDATE ON public.case_precedents REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.lexicon_apply('');

--
-- Name: case_precedents case_precedents_postings_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_precedents_postings_del AFTER DELETE ON public.case_precedents REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.lexical_postings_apply('');

--
-- Name: case_precedents case_precedents_postings_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_precedents_postings_ins AFTER INSERT ON public.case_precedents REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.lexical_postings_apply('');

--
-- Name: case_precedents case_precedents_postings_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_precedents_postings_upd AFTER UPDATE ON public.case_precedents REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.lexical_postings_apply('');

--
-- Name: case_precedents case_precedents_term_stats; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER case_precedents_term_stats BEFORE INSERT OR UPDATE OF analyzed ON public.case_precedents FOR EACH ROW EXECUTE FUNCTION public.unit_term_stats();

--
-- Name: cases cases_agent_gate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER cases_agent_gate BEFORE INSERT OR UPDATE ON public.cases FOR EACH ROW EXECUTE FUNCTION public.cases_agent_gate();

--
-- Name: cases cases_block_exemplars; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER cases_block_exemplars AFTER UPDATE OF appeal_type, outcome, practice_area ON public.cases FOR EACH ROW WHEN (((old.appeal_type IS DISTINCT FROM new.appeal_type) OR (old.outcome IS DISTINCT FROM new.outcome) OR (old.practice_area IS DISTINCT FROM new.practice_area))) EXECUTE FUNCTION public.block_exemplars_follow_case();

--
-- Name: chair_feedback chair_feedback_record; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER chair_feedback_record BEFORE INSERT OR UPDATE ON public.chair_feedback FOR EACH ROW EXECUTE FUNCTION public.chair_feedback_record();

--
-- Name: cite_reports cite_reports_append_only; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER cite_reports_append_only BEFORE DELETE OR UPDATE ON public.cite_reports FOR EACH ROW EXECUTE FUNCTION public.refuse_change();

--
-- Name: cite_reports cite_reports_gate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER cite_reports_gate BEFORE INSERT ON public.cite_reports FOR EACH ROW EXECUTE FUNCTION public.cite_report_gate();

--
-- Name: cite_reports cite_reports_no_truncate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER cite_reports_no_truncate BEFORE TRUNCATE ON public.cite_reports FOR EACH STATEMENT EXECUTE FUNCTION public.refuse_truncate();

--
-- Name: decision_lessons decision_lessons_audit; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER decision_lessons_audit AFTER INSERT OR UPDATE ON public.decision_lessons FOR EACH ROW EXECUTE FUNCTION public.lesson_audit();

--
-- Name: decision_lessons decision_lessons_gate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER decision_lessons_gate BEFORE INSERT OR UPDATE ON public.decision_lessons FOR EACH ROW EXECUTE FUNCTION public.lesson_gate();

--
-- Name: decision_lessons decision_lessons_her_edits; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER decision_lessons_her_edits BEFORE INSERT OR UPDATE ON public.decision_lessons FOR EACH ROW EXECUTE FUNCTION public.lesson_evidence_gate();

--
-- Name: decision_lessons decision_lessons_proposal_cap; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER decision_lessons_proposal_cap BEFORE INSERT ON public.decision_lessons FOR EACH ROW EXECUTE FUNCTION public.proposal_cap();

--
-- Name: decision_lessons decision_lessons_reopen; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER decision_lessons_reopen BEFORE UPDATE OF review_status ON public.decision_lessons FOR EACH ROW EXECUTE FUNCTION public.lesson_reopen_gate();

--
-- Name: digest_chunks digest_chunks_lexicon_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER digest_chunks_lexicon_del AFTER DELETE ON public.digest_chunks REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.lexicon_apply('');

--
-- Name: digest_chunks digest_chunks_lexicon_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER digest_chunks_lexicon_ins AFTER INSERT ON public.digest_chunks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.lexicon_apply('');

--
-- Name: digest_chunks digest_chunks_lexicon_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER digest_chunks_lexicon_upd AFTER UPDATE ON public.digest_chunks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.lexicon_apply('');

--
-- Name: digest_chunks digest_chunks_postings_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER digest_chunks_postings_del AFTER DELETE ON public.digest_chunks REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.lexical_postings_apply('');

--
-- Name: digest_chunks digest_chunks_postings_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER digest_chunks_postings_ins AFTER INSERT ON public.digest_chunks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.lexical_postings_apply('');

--
-- Name: digest_chunks digest_chunks_postings_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER digest_chunks_postings_upd AFTER UPDATE ON public.digest_chunks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.lexical_postings_apply('');

--
-- Name: digest_chunks digest_chunks_term_stats; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER digest_chunks_term_stats BEFORE INSERT OR UPDATE OF analyzed ON public.digest_chunks FOR EACH ROW EXECUTE FUNCTION public.unit_term_stats();

--
-- Name: digest_chunks digest_chunks_touch_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER digest_chunks_touch_del AFTER DELETE ON public.digest_chunks REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.chunks_touch_parents('digests', 'digest_id');

--
-- Name: digest_chunks digest_chunks_touch_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER digest_chunks_touch_ins AFTER INSERT ON public.digest_chunks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.chunks_touch_parents('digests', 'digest_id');

--
-- Name: digest_chunks digest_chunks_touch_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER digest_chunks_touch_upd AFTER UPDATE ON public.digest_chunks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.chunks_touch_parents('digests', 'digest_id');

--
-- Name: digests digests_contract; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER digests_contract BEFORE INSERT OR UPDATE ON public.digests FOR EACH ROW EXECUTE FUNCTION public.item_contract('digest_chunks', 'digest_id', 'digests');

--
-- Name: digests digests_refile_postings; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER digests_refile_postings AFTER UPDATE ON public.digests FOR EACH ROW WHEN ((old.practice_area IS DISTINCT FROM new.practice_area)) EXECUTE FUNCTION public.lexical_postings_item();

--
-- Name: digests digests_unfile_postings; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER digests_unfile_postings BEFORE DELETE ON public.digests FOR EACH ROW EXECUTE FUNCTION public.lexical_postings_item();

--
-- Name: digests digests_versions; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER digests_versions AFTER INSERT OR UPDATE ON public.digests FOR EACH ROW EXECUTE FUNCTION public.record_item_version();

--
-- Name: document_chunks document_chunks_case_gate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER document_chunks_case_gate BEFORE INSERT OR DELETE OR UPDATE ON public.document_chunks FOR EACH ROW EXECUTE FUNCTION public.case_files_gate();

--
-- Name: document_chunks document_chunks_lexicon_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER document_chunks_lexicon_del AFTER DELETE ON public.document_chunks REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.lexicon_apply('corpus');

--
-- Name: document_chunks document_chunks_lexicon_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER document_chunks_lexicon_ins AFTER INSERT ON public.document_chunks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.lexicon_apply('corpus');

--
-- Name: document_chunks document_chunks_lexicon_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER document_chunks_lexicon_upd AFTER UPDATE ON public.document_chunks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.lexicon_apply('corpus');

--
-- Name: document_chunks document_chunks_postings_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER document_chunks_postings_del AFTER DELETE ON public.document_chunks REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.lexical_postings_apply('corpus');

--
-- Name: document_chunks document_chunks_postings_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER document_chunks_postings_ins AFTER INSERT ON public.document_chunks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.lexical_postings_apply('corpus');

--
-- Name: document_chunks document_chunks_postings_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER document_chunks_postings_upd AFTER UPDATE ON public.document_chunks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.lexical_postings_apply('corpus');

--
-- Name: document_chunks document_chunks_practice_area; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER document_chunks_practice_area BEFORE INSERT OR UPDATE ON public.document_chunks FOR EACH ROW EXECUTE FUNCTION public.document_chunk_practice_area();

--
-- Name: document_chunks document_chunks_term_stats; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER document_chunks_term_stats BEFORE INSERT OR UPDATE OF analyzed ON public.document_chunks FOR EACH ROW EXECUTE FUNCTION public.unit_term_stats();

--
-- Name: document_chunks document_chunks_touch_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER document_chunks_touch_del AFTER DELETE ON public.document_chunks REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.chunks_touch_parents('documents', 'document_id');

--
-- Name: document_chunks document_chunks_touch_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER document_chunks_touch_ins AFTER INSERT ON public.document_chunks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.chunks_touch_parents('documents', 'document_id');

--
-- Name: document_chunks document_chunks_touch_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER document_chunks_touch_upd AFTER UPDATE ON public.document_chunks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.chunks_touch_parents('documents', 'document_id');

--
-- Name: documents documents_block_exemplars; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER documents_block_exemplars AFTER UPDATE OF case_number, practice_area, decided_on, metadata ON public.documents FOR EACH ROW WHEN (((new.corpus = 'style'::text) AND ((old.case_number IS DISTINCT FROM new.case_number) OR (old.practice_area IS DISTINCT FROM new.practice_area) OR (old.decided_on IS DISTINCT FROM new.decided_on) OR (old.metadata IS DISTINCT FROM new.metadata)))) EXECUTE FUNCTION public.block_exemplars_follow_document();

--
-- Name: documents documents_case_gate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER documents_case_gate BEFORE INSERT OR DELETE OR UPDATE ON public.documents FOR EACH ROW EXECUTE FUNCTION public.case_files_gate();

--
-- Name: documents documents_contract; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER documents_contract BEFORE INSERT OR UPDATE ON public.documents FOR EACH ROW EXECUTE FUNCTION public.item_contract('document_chunks', 'document_id', 'null');

--
-- Name: documents documents_practice_area_to_chunks; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER documents_practice_area_to_chunks AFTER UPDATE ON public.documents FOR EACH ROW WHEN ((old.practice_area IS DISTINCT FROM new.practice_area)) EXECUTE FUNCTION public.documents_practice_area_to_chunks();

--
-- Name: documents documents_refile_postings; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER documents_refile_postings AFTER UPDATE ON public.documents FOR EACH ROW WHEN ((old.practice_area IS DISTINCT FROM new.practice_area)) EXECUTE FUNCTION public.lexical_postings_item();

--
-- Name: documents documents_style_gate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER documents_style_gate BEFORE INSERT OR DELETE OR UPDATE ON public.documents FOR EACH ROW EXECUTE FUNCTION public.style_documents_gate();

--
-- Name: documents documents_unfile_postings; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER documents_unfile_postings BEFORE DELETE ON public.documents FOR EACH ROW EXECUTE FUNCTION public.lexical_postings_item();

--
-- Name: documents documents_versions; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER documents_versions AFTER INSERT OR UPDATE ON public.documents FOR EACH ROW EXECUTE FUNCTION public.record_item_version();

--
-- Name: draft_final_pairs draft_final_pairs_forward; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER draft_final_pairs_forward BEFORE INSERT OR UPDATE ON public.draft_final_pairs FOR EACH ROW EXECUTE FUNCTION public.pair_status_forward();

--
-- Name: drafts drafts_agent_gate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER drafts_agent_gate BEFORE INSERT ON public.drafts FOR EACH ROW EXECUTE FUNCTION public.drafts_agent_gate();

--
-- Name: embedding_cache embedding_cache_writer; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER embedding_cache_writer BEFORE INSERT OR UPDATE ON public.embedding_cache FOR EACH ROW EXECUTE FUNCTION public.embedding_cache_writer();

--
-- Name: embedding_config embedding_config_changed; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER embedding_config_changed AFTER INSERT OR UPDATE ON public.embedding_config FOR EACH ROW EXECUTE FUNCTION public.embedder_changed();

--
-- Name: chair_feedback feedback_dated; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER feedback_dated BEFORE INSERT ON public.chair_feedback FOR EACH ROW EXECUTE FUNCTION public.feedback_dated();

--
-- Name: feedback_lessons feedback_lessons_gate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER feedback_lessons_gate BEFORE INSERT ON public.feedback_lessons FOR EACH ROW EXECUTE FUNCTION public.feedback_lesson_gate();

--
-- Name: item_versions item_versions_append_only; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER item_versions_append_only BEFORE DELETE OR UPDATE ON public.item_versions FOR EACH ROW EXECUTE FUNCTION public.refuse_change();

--
-- Name: item_versions item_versions_no_truncate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER item_versions_no_truncate BEFORE TRUNCATE ON public.item_versions FOR EACH STATEMENT EXECUTE FUNCTION public.refuse_truncate();

--
-- Name: item_versions item_versions_record; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER item_versions_record BEFORE INSERT ON public.item_versions FOR EACH ROW EXECUTE FUNCTION public.item_version_record();

--
-- Name: jobs jobs_agent_fields; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER jobs_agent_fields BEFORE INSERT ON public.jobs FOR EACH ROW EXECUTE FUNCTION public.jobs_agent_fields();

--
-- Name: jobs jobs_gate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER jobs_gate BEFORE INSERT ON public.jobs FOR EACH ROW EXECUTE FUNCTION public.jobs_gate();

--
-- Name: learning_audit learning_audit_append_only; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER learning_audit_append_only BEFORE DELETE OR UPDATE ON public.learning_audit FOR EACH ROW EXECUTE FUNCTION public.refuse_change();

--
-- Name: learning_audit learning_audit_no_truncate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER learning_audit_no_truncate BEFORE TRUNCATE ON public.learning_audit FOR EACH STATEMENT EXECUTE FUNCTION public.refuse_truncate();

--
-- Name: learning_audit learning_audit_record; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER learning_audit_record BEFORE INSERT ON public.learning_audit FOR EACH ROW EXECUTE FUNCTION public.audit_record();

--
-- Name: decision_lessons lesson_agent_gate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER lesson_agent_gate BEFORE INSERT ON public.decision_lessons FOR EACH ROW EXECUTE FUNCTION public.lesson_agent_gate();

--
-- Name: lexical_postings lexical_postings_df_del; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER lexical_postings_df_del AFTER DELETE ON public.lexical_postings REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public.lexical_area_df_apply();

--
-- Name: lexical_postings lexical_postings_df_ins; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER lexical_postings_df_ins AFTER INSERT ON public.lexical_postings REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.lexical_area_df_apply();

--
-- Name: lexical_postings lexical_postings_df_upd; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER lexical_postings_df_upd AFTER UPDATE ON public.lexical_postings REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public.lexical_area_df_apply();

--
-- Name: methodology_profile_versions methodology_profile_versions_append_only; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER methodology_profile_versions_append_only BEFORE DELETE OR UPDATE ON public.methodology_profile_versions FOR EACH ROW EXECUTE FUNCTION public.refuse_change();

--
-- Name: methodology_profile_versions methodology_profile_versions_no_truncate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER methodology_profile_versions_no_truncate BEFORE TRUNCATE ON public.methodology_profile_versions FOR EACH STATEMENT EXECUTE FUNCTION public.refuse_truncate();

--
-- Name: model_calls model_calls_append_only; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER model_calls_append_only BEFORE DELETE OR UPDATE ON public.model_calls FOR EACH ROW EXECUTE FUNCTION public.refuse_change();

--
-- Name: model_calls model_calls_no_truncate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER model_calls_no_truncate BEFORE TRUNCATE ON public.model_calls FOR EACH STATEMENT EXECUTE FUNCTION public.refuse_truncate();

--
-- Name: model_calls model_calls_record; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER model_calls_record BEFORE INSERT ON public.model_calls FOR EACH ROW EXECUTE FUNCTION public.model_call_record();

--
-- Name: panel_verdicts panel_verdicts_append_only; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER panel_verdicts_append_only BEFORE DELETE OR UPDATE ON public.panel_verdicts FOR EACH ROW EXECUTE FUNCTION public.refuse_change();

--
-- Name: panel_verdicts panel_verdicts_gate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER panel_verdicts_gate BEFORE INSERT ON public.panel_verdicts FOR EACH ROW EXECUTE FUNCTION public.panel_verdict_gate();

--
-- Name: panel_verdicts panel_verdicts_no_truncate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER panel_verdicts_no_truncate BEFORE TRUNCATE ON public.panel_verdicts FOR EACH STATEMENT EXECUTE FUNCTION public.refuse_truncate();

--
-- Name: case_law_principles principle_span; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER principle_span BEFORE INSERT OR UPDATE ON public.case_law_principles FOR EACH ROW EXECUTE FUNCTION public.principle_span();

--
-- Name: principle_votes principle_votes_append_only; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER principle_votes_append_only BEFORE DELETE OR UPDATE ON public.principle_votes FOR EACH ROW EXECUTE FUNCTION public.refuse_change();

--
-- Name: principle_votes principle_votes_gate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER principle_votes_gate BEFORE INSERT ON public.principle_votes FOR EACH ROW EXECUTE FUNCTION public.principle_vote_gate();

--
-- Name: principle_votes principle_votes_no_truncate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER principle_votes_no_truncate BEFORE TRUNCATE ON public.principle_votes FOR EACH STATEMENT EXECUTE FUNCTION public.refuse_truncate();

--
-- Name: schedule_runs schedule_runs_append_only; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER schedule_runs_append_only BEFORE DELETE OR UPDATE ON public.schedule_runs FOR EACH ROW EXECUTE FUNCTION public.refuse_change();

--
-- Name: schedule_runs schedule_runs_no_truncate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER schedule_runs_no_truncate BEFORE TRUNCATE ON public.schedule_runs FOR EACH STATEMENT EXECUTE FUNCTION public.refuse_truncate();

--
-- Name: search_log search_log_gate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER search_log_gate BEFORE INSERT ON public.search_log FOR EACH ROW EXECUTE FUNCTION public.search_log_gate();

--
-- Name: search_marks search_marks_gate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER search_marks_gate BEFORE INSERT OR UPDATE ON public.search_marks FOR EACH ROW EXECUTE FUNCTION public.search_mark_gate();

--
-- Name: style_distance_history style_distance_history_append_only; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER style_distance_history_append_only BEFORE DELETE OR UPDATE ON public.style_distance_history FOR EACH ROW EXECUTE FUNCTION public.refuse_change();

--
-- Name: style_distance_history style_distance_history_methodology_size; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER style_distance_history_methodology_size BEFORE INSERT ON public.style_distance_history FOR EACH ROW EXECUTE FUNCTION public.style_history_methodology_size();

--
-- Name: style_distance_history style_distance_history_no_truncate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER style_distance_history_no_truncate BEFORE TRUNCATE ON public.style_distance_history FOR EACH STATEMENT EXECUTE FUNCTION public.refuse_truncate();

--
-- Name: synthesis_attempts synthesis_attempts_append_only; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER synthesis_attempts_append_only BEFORE DELETE OR UPDATE ON public.synthesis_attempts FOR EACH ROW EXECUTE FUNCTION public.refuse_change();

--
-- Name: synthesis_attempts synthesis_attempts_no_truncate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER synthesis_attempts_no_truncate BEFORE TRUNCATE ON public.synthesis_attempts FOR EACH STATEMENT EXECUTE FUNCTION public.refuse_truncate();

--
-- Name: treatments treatments_delete_gate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER treatments_delete_gate BEFORE DELETE ON public.treatments FOR EACH ROW EXECUTE FUNCTION public.treatments_delete_gate();

--
-- Name: treatments treatments_gate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER treatments_gate BEFORE INSERT OR UPDATE ON public.treatments FOR EACH ROW EXECUTE FUNCTION public.treatments_gate();

--
-- Name: voice_documents voice_documents_gate; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER voice_documents_gate BEFORE INSERT OR DELETE OR UPDATE ON public.voice_documents FOR EACH ROW EXECUTE FUNCTION public.voice_document_gate();

--
-- Name: voice_documents voice_documents_record; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER voice_documents_record AFTER INSERT OR UPDATE ON public.voice_documents FOR EACH ROW EXECUTE FUNCTION public.voice_document_record();

--
-- Name: authorities authorities_case_law_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.authorities
    ADD CONSTRAINT authorities_case_law_id_fkey FOREIGN KEY (case_law_id) REFERENCES public.case_law(id) ON DELETE SET NULL;

--
-- Name: block_exemplars block_exemplars_document_id_corpus_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.block_exemplars
    ADD CONSTRAINT block_exemplars_document_id_corpus_fkey FOREIGN KEY (document_id, corpus) REFERENCES public.documents(id, corpus) ON DELETE CASCADE;

--
-- Name: canonical_statement_versions canonical_statement_versions_canonical_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.canonical_statement_versions
    ADD CONSTRAINT canonical_statement_versions_canonical_id_fkey FOREIGN KEY (canonical_id) REFERENCES public.canonical_principles(id);

--
-- Name: case_law_chunks case_law_chunks_case_law_id_source_kind_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE public.case_law_chunks
    ADD CONSTRAINT case_law_chunks_case_law_id_source_kind_fkey FOREIGN KEY (case_law_id, source_kind) REFERENCES public.case_law(id, source_kind) ON DELETE CASCADE;

--
-- Name: case_law_enrichments case_law_enrichments_case_law_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.case_law_enrichments
    ADD CONSTRAINT case_law_enrichments_case_law_id_fkey FOREIGN KEY (case_law_id) REFERENCES public.case_law(id) ON DELETE CASCADE;

--
-- Name: case_law_page_images case_law_page_images_case_law_id_source_kind_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE public.case_law_page_images
    ADD CONSTRAINT case_law_page_images_case_law_id_source_kind_fkey FOREIGN KEY (case_law_id, source_kind) REFERENCES public.case_law(id, source_kind) ON DELETE CASCADE;

--
-- Name: case_law_principles case_law_principles_canonical_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE public.case_law_principles
    ADD CONSTRAINT case_law_principles_canonical_fk FOREIGN KEY (canonical_id, source_kind) REFERENCES public.canonical_principles(id, source_kind);

--
-- Name: case_law_principles case_law_principles_case_law_id_source_kind_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE public.case_law_principles
    ADD CONSTRAINT case_law_principles_case_law_id_source_kind_fkey FOREIGN KEY (case_law_id, source_kind) REFERENCES public.case_law(id, source_kind) ON DELETE CASCADE;

--
-- Name: case_precedents case_precedents_case_law_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.case_precedents
    ADD CONSTRAINT case_precedents_case_law_id_fkey FOREIGN KEY (case_law_id) REFERENCES public.case_law(id) ON DELETE SET NULL;

--
-- Name: case_precedents case_precedents_case_number_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.case_precedents
    ADD CONSTRAINT case_precedents_case_number_fkey FOREIGN KEY (case_number) REFERENCES public.cases(case_number) ON UPDATE CASCADE ON DELETE CASCADE;

--
-- Name: case_status case_status_case_number_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.case_status
    ADD CONSTRAINT case_status_case_number_fkey FOREIGN KEY (case_number) REFERENCES public.cases(case_number) ON UPDATE CASCADE ON DELETE CASCADE;

--
-- Name: chair_feedback chair_feedback_block_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.chair_feedback
    ADD CONSTRAINT chair_feedback_block_fkey FOREIGN KEY (block) REFERENCES public.decision_blocks(block);

--
-- Name: chair_feedback chair_feedback_case_number_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.chair_feedback
    ADD CONSTRAINT chair_feedback_case_number_fkey FOREIGN KEY (case_number) REFERENCES public.cases(case_number) ON UPDATE CASCADE;

--
-- Name: cite_reports cite_reports_draft_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.cite_reports
    ADD CONSTRAINT cite_reports_draft_id_fkey FOREIGN KEY (draft_id) REFERENCES public.drafts(id);

--
-- Name: copy_fingerprints copy_fingerprints_case_law_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.copy_fingerprints
    ADD CONSTRAINT copy_fingerprints_case_law_id_fkey FOREIGN KEY (case_law_id) REFERENCES public.case_law(id) ON DELETE CASCADE;

--
-- Name: copy_fingerprints copy_fingerprints_document_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.copy_fingerprints
    ADD CONSTRAINT copy_fingerprints_document_id_fkey FOREIGN KEY (document_id) REFERENCES public.documents(id) ON DELETE CASCADE;

--
-- Name: decision_citations decision_citations_authority_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.decision_citations
    ADD CONSTRAINT decision_citations_authority_id_fkey FOREIGN KEY (authority_id) REFERENCES public.authorities(id);

--
-- Name: decision_citations decision_citations_citing_case_law_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.decision_citations
    ADD CONSTRAINT decision_citations_citing_case_law_id_fkey FOREIGN KEY (citing_case_law_id) REFERENCES public.case_law(id) ON DELETE CASCADE;

--
-- Name: decision_lessons decision_lessons_block_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.decision_lessons
    ADD CONSTRAINT decision_lessons_block_fkey FOREIGN KEY (block) REFERENCES public.decision_blocks(block);

--
-- Name: decision_lessons decision_lessons_case_number_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.decision_lessons
    ADD CONSTRAINT decision_lessons_case_number_fkey FOREIGN KEY (case_number) REFERENCES public.cases(case_number) ON UPDATE CASCADE;

--
-- Name: decision_lessons decision_lessons_category_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.decision_lessons
    ADD CONSTRAINT decision_lessons_category_fkey FOREIGN KEY (category) REFERENCES public.lesson_categories(category);

--
-- Name: decision_lessons decision_lessons_job_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.decision_lessons
    ADD CONSTRAINT decision_lessons_job_id_fkey FOREIGN KEY (job_id) REFERENCES public.jobs(id);

--
-- Name: decision_lessons decision_lessons_pair_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.decision_lessons
    ADD CONSTRAINT decision_lessons_pair_id_fkey FOREIGN KEY (pair_id) REFERENCES public.draft_final_pairs(id);

--
-- Name: decision_scans decision_scans_file_sha256_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.decision_scans
    ADD CONSTRAINT decision_scans_file_sha256_fkey FOREIGN KEY (file_sha256) REFERENCES public.scanned_files(file_sha256);

--
-- Name: desk_sessions desk_sessions_name_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.desk_sessions
    ADD CONSTRAINT desk_sessions_name_fkey FOREIGN KEY (name) REFERENCES public.desk_users(name) ON DELETE CASCADE;

--
-- Name: digest_chunks digest_chunks_digest_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.digest_chunks
    ADD CONSTRAINT digest_chunks_digest_id_fkey FOREIGN KEY (digest_id) REFERENCES public.digests(id) ON DELETE CASCADE;

--
-- Name: digests digests_case_law_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.digests
    ADD CONSTRAINT digests_case_law_id_fkey FOREIGN KEY (case_law_id) REFERENCES public.case_law(id) ON DELETE SET NULL;

--
-- Name: document_chunks document_chunks_document_id_corpus_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE public.document_chunks
    ADD CONSTRAINT document_chunks_document_id_corpus_fkey FOREIGN KEY (document_id, corpus) REFERENCES public.documents(id, corpus) ON DELETE CASCADE;

--
-- Name: document_page_images document_page_images_document_id_corpus_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE public.document_page_images
    ADD CONSTRAINT document_page_images_document_id_corpus_fkey FOREIGN KEY (document_id, corpus) REFERENCES public.documents(id, corpus) ON DELETE CASCADE;

--
-- Name: documents documents_case_number_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.documents
    ADD CONSTRAINT documents_case_number_fkey FOREIGN KEY (case_number) REFERENCES public.cases(case_number) ON UPDATE CASCADE;

--
-- Name: draft_final_pairs draft_final_pairs_case_law_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.draft_final_pairs
    ADD CONSTRAINT draft_final_pairs_case_law_id_fkey FOREIGN KEY (case_law_id) REFERENCES public.case_law(id);

--
-- Name: draft_final_pairs draft_final_pairs_case_number_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.draft_final_pairs
    ADD CONSTRAINT draft_final_pairs_case_number_fkey FOREIGN KEY (case_number) REFERENCES public.cases(case_number) ON UPDATE CASCADE;

--
-- Name: draft_final_pairs draft_final_pairs_draft_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.draft_final_pairs
    ADD CONSTRAINT draft_final_pairs_draft_id_fkey FOREIGN KEY (draft_id) REFERENCES public.drafts(id);

--
-- Name: draft_final_pairs draft_final_pairs_style_document_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.draft_final_pairs
    ADD CONSTRAINT draft_final_pairs_style_document_id_fkey FOREIGN KEY (style_document_id) REFERENCES public.documents(id);

--
-- Name: draft_originals draft_originals_draft_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.draft_originals
    ADD CONSTRAINT draft_originals_draft_id_fkey FOREIGN KEY (draft_id) REFERENCES public.drafts(id) ON DELETE CASCADE;

--
-- Name: draft_originals draft_originals_file_sha256_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.draft_originals
    ADD CONSTRAINT draft_originals_file_sha256_fkey FOREIGN KEY (file_sha256) REFERENCES public.original_files(file_sha256);

--
-- Name: drafts drafts_case_number_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.drafts
    ADD CONSTRAINT drafts_case_number_fkey FOREIGN KEY (case_number) REFERENCES public.cases(case_number) ON UPDATE CASCADE;

--
-- Name: feedback_lessons feedback_lessons_feedback_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.feedback_lessons
    ADD CONSTRAINT feedback_lessons_feedback_id_fkey FOREIGN KEY (feedback_id) REFERENCES public.chair_feedback(id);

--
-- Name: feedback_lessons feedback_lessons_lesson_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.feedback_lessons
    ADD CONSTRAINT feedback_lessons_lesson_id_fkey FOREIGN KEY (lesson_id) REFERENCES public.decision_lessons(id);

--
-- Name: learning_audit learning_audit_lesson_exists; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.learning_audit
    ADD CONSTRAINT learning_audit_lesson_exists FOREIGN KEY (lesson_id) REFERENCES public.decision_lessons(id) NOT VALID;

--
-- Name: methodology_profile_versions methodology_profile_versions_appeal_type_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.methodology_profile_versions
    ADD CONSTRAINT methodology_profile_versions_appeal_type_fkey FOREIGN KEY (appeal_type) REFERENCES public.methodology_profiles(appeal_type);

--
-- Name: missing_precedents missing_precedents_authority_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.missing_precedents
    ADD CONSTRAINT missing_precedents_authority_id_fkey FOREIGN KEY (authority_id) REFERENCES public.authorities(id);

--
-- Name: model_calls model_calls_job_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.model_calls
    ADD CONSTRAINT model_calls_job_id_fkey FOREIGN KEY (job_id) REFERENCES public.jobs(id);

--
-- Name: panel_verdicts panel_verdicts_lesson_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.panel_verdicts
    ADD CONSTRAINT panel_verdicts_lesson_id_fkey FOREIGN KEY (lesson_id) REFERENCES public.decision_lessons(id);

--
-- Name: panel_verdicts panel_verdicts_model_call_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.panel_verdicts
    ADD CONSTRAINT panel_verdicts_model_call_id_fkey FOREIGN KEY (model_call_id) REFERENCES public.model_calls(id);

--
-- Name: principle_votes principle_votes_model_call_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.principle_votes
    ADD CONSTRAINT principle_votes_model_call_id_fkey FOREIGN KEY (model_call_id) REFERENCES public.model_calls(id);

--
-- Name: search_marks search_marks_search_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.search_marks
    ADD CONSTRAINT search_marks_search_id_fkey FOREIGN KEY (search_id) REFERENCES public.search_log(id) ON DELETE CASCADE;

--
-- Name: style_distance_history style_distance_history_pair_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.style_distance_history
    ADD CONSTRAINT style_distance_history_pair_id_fkey FOREIGN KEY (pair_id) REFERENCES public.draft_final_pairs(id);

--
-- Name: synthesis_attempts synthesis_attempts_canonical_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.synthesis_attempts
    ADD CONSTRAINT synthesis_attempts_canonical_id_fkey FOREIGN KEY (canonical_id) REFERENCES public.canonical_principles(id);

--
-- Name: treatments treatments_by_case_law_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.treatments
    ADD CONSTRAINT treatments_by_case_law_id_fkey FOREIGN KEY (by_case_law_id) REFERENCES public.case_law(id) ON DELETE CASCADE;

--
-- Name: treatments treatments_case_law_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.treatments
    ADD CONSTRAINT treatments_case_law_id_fkey FOREIGN KEY (case_law_id) REFERENCES public.case_law(id) ON DELETE SET NULL;

--
-- Name: voice_documents voice_documents_case_number_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.voice_documents
    ADD CONSTRAINT voice_documents_case_number_fkey FOREIGN KEY (case_number) REFERENCES public.cases(case_number) ON UPDATE CASCADE;

--
-- PostgreSQL database dump complete
--

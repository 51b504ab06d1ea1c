-- 0043_lexical_postings: the lexical leg's postings (issue 39 item 1). Per searchable table
-- (the `lexicon`'s source) and analyzed term, every unit holding it with the term's frequency and
-- the unit's token count: all a BM25 score needs, read from one covering index in term order
-- without touching (or decompressing) the units' rows. The leg scores the kept query terms'
-- postings, then checks the filter, freshness and scope on the best-scored units only until its
-- window is full (retrieval/legs.py).
--
-- Kept by statement triggers on the five unit tables (beside 0003's lexicon triggers): an insert,
-- a delete, or an update that changes a unit's term frequencies, token count or partition, by
-- any path or by SQL, rewrites that unit's postings in its own statement. lexicon_rebuild()
-- rebuilds them too (after a bulk load that bypassed triggers, or a TRUNCATE).
CREATE TABLE lexical_postings (
    source      text    NOT NULL,
    term        text    NOT NULL,
    unit_id     bigint  NOT NULL,
    tf          integer NOT NULL CHECK (tf > 0),
    token_count integer NOT NULL CHECK (token_count >= 0),
    CONSTRAINT lexical_postings_pkey PRIMARY KEY (source, term, unit_id) INCLUDE (tf, token_count)
);

-- TG_ARGV[0]: the partition column ('corpus', 'source_kind' or '' for unpartitioned tables).
CREATE FUNCTION lexical_postings_apply() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    part text := TG_ARGV[0];
    old_source text := CASE WHEN part = '' THEN quote_literal(TG_TABLE_NAME)
                            ELSE quote_literal(TG_TABLE_NAME || '_') || ' || o.' || quote_ident(part) END;
    new_source text := CASE WHEN part = '' THEN quote_literal(TG_TABLE_NAME)
                            ELSE quote_literal(TG_TABLE_NAME || '_') || ' || n.' || quote_ident(part) END;
    -- An update that leaves a unit's statistics and partition alone leaves its postings alone.
    same text := format('n.id = o.id AND n.term_freqs = o.term_freqs'
                        ' AND n.token_count = o.token_count AND %s = %s', old_source, new_source);
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        EXECUTE format(
            'DELETE FROM lexical_postings p USING ('
            '  SELECT %s AS source, o.id, w.key AS term FROM old_rows o, jsonb_each(o.term_freqs) w'
            '  WHERE %s) g'
            ' WHERE p.source = g.source AND p.term = g.term AND p.unit_id = g.id',
            old_source,
            CASE WHEN TG_OP = 'UPDATE'
                 THEN format('NOT EXISTS (SELECT 1 FROM new_rows n WHERE %s)', same)
                 ELSE 'true' END);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        EXECUTE format(
            'INSERT INTO lexical_postings (source, term, unit_id, tf, token_count)'
            ' SELECT %s, w.key, n.id, (w.value)::integer, n.token_count'
            ' FROM new_rows n, jsonb_each_text(n.term_freqs) w'
            ' WHERE (w.value)::integer > 0 AND %s ORDER BY 1, 2, 3',
            new_source,
            CASE WHEN TG_OP = 'UPDATE'
                 THEN format('NOT EXISTS (SELECT 1 FROM old_rows o WHERE %s)', same)
                 ELSE 'true' END);
    END IF;
    RETURN NULL;
END $$;

DO $$
DECLARE
    t record;
BEGIN
    FOR t IN SELECT * FROM (VALUES
        ('document_chunks', 'corpus'),
        ('case_law_chunks', 'source_kind'),
        ('case_law_principles', 'source_kind'),
        ('digest_chunks', ''),
        ('case_precedents', '')) AS v(tbl, part)
    LOOP
        EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows'
                       ' FOR EACH STATEMENT EXECUTE FUNCTION lexical_postings_apply(%L)',
                       t.tbl || '_postings_ins', t.tbl, t.part);
        EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows'
                       ' FOR EACH STATEMENT EXECUTE FUNCTION lexical_postings_apply(%L)',
                       t.tbl || '_postings_del', t.tbl, t.part);
        EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows'
                       ' NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION lexical_postings_apply(%L)',
                       t.tbl || '_postings_upd', t.tbl, t.part);
    END LOOP;
END $$;

-- The postings of every unit, from scratch.
CREATE FUNCTION lexical_postings_rebuild() RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM lexical_postings;
    INSERT INTO lexical_postings
        SELECT 'document_chunks_' || u.corpus, w.key, u.id, (w.value)::integer, u.token_count
        FROM document_chunks u, jsonb_each_text(u.term_freqs) w WHERE (w.value)::integer > 0;
    INSERT INTO lexical_postings
        SELECT 'case_law_chunks_' || u.source_kind, w.key, u.id, (w.value)::integer, u.token_count
        FROM case_law_chunks u, jsonb_each_text(u.term_freqs) w WHERE (w.value)::integer > 0;
    INSERT INTO lexical_postings
        SELECT 'case_law_principles_' || u.source_kind, w.key, u.id, (w.value)::integer,
               u.token_count
        FROM case_law_principles u, jsonb_each_text(u.term_freqs) w WHERE (w.value)::integer > 0;
    INSERT INTO lexical_postings
        SELECT 'digest_chunks', w.key, u.id, (w.value)::integer, u.token_count
        FROM digest_chunks u, jsonb_each_text(u.term_freqs) w WHERE (w.value)::integer > 0;
    INSERT INTO lexical_postings
        SELECT 'case_precedents', w.key, u.id, (w.value)::integer, u.token_count
        FROM case_precedents u, jsonb_each_text(u.term_freqs) w WHERE (w.value)::integer > 0;
END $$;

-- lexicon_rebuild() (0005's, whose callers rebuild after a bulk load or a TRUNCATE) rebuilds the
-- postings as well: renamed, and the public name calls both.
ALTER FUNCTION lexicon_rebuild() RENAME TO lexicon_rebuild_before_0043;
CREATE FUNCTION lexicon_rebuild() RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM lexicon_rebuild_before_0043();
    PERFORM lexical_postings_rebuild();
END $$;

-- The backfill.
SELECT lexical_postings_rebuild();

-- ---------------------------------------------------------------------------------------------
-- Grants (0033's allowlist, kept whole as 0038 does): whoever writes a unit table writes its
-- postings through the trigger (the chair and the worker, as the lexicon); every role reads them
-- (an agent's search). The agent-only login writes none.
ALTER FUNCTION role_write_grants() RENAME TO apply_role_grants_writes_before_0043;
ALTER FUNCTION role_read_tables() RENAME TO apply_role_grants_reads_before_0043;

CREATE FUNCTION role_write_grants()
RETURNS TABLE (grantee text, table_name text, privilege text, columns text[])
LANGUAGE sql IMMUTABLE AS $$
    SELECT * FROM apply_role_grants_writes_before_0043()
    UNION ALL
    SELECT * FROM (VALUES
        ('legal_ai_chair', 'lexical_postings', 'INSERT', NULL::text[]),
        ('legal_ai_chair', 'lexical_postings', 'DELETE', NULL::text[]),
        ('legal_ai_worker', 'lexical_postings', 'INSERT', NULL::text[]),
        ('legal_ai_worker', 'lexical_postings', 'DELETE', NULL::text[])) AS v
$$;

CREATE FUNCTION role_read_tables() RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
    SELECT apply_role_grants_reads_before_0043() || ARRAY['lexical_postings']
$$;

-- The rebuilds stay the owner's, as lexicon_rebuild() is (0033's owner_only_function, wrapped).
ALTER FUNCTION owner_only_function(text) RENAME TO apply_role_grants_owner_only_before_0043;
CREATE FUNCTION owner_only_function(name text) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
    SELECT apply_role_grants_owner_only_before_0043(name)
        OR name IN ('lexicon_rebuild_before_0043', 'lexical_postings_rebuild')
$$;

DO $pin$
DECLARE
    f text;
BEGIN
    FOREACH f IN ARRAY ARRAY['role_write_grants()', 'role_read_tables()',
                             'owner_only_function(text)']
    LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = pg_catalog, %I, pg_temp', f,
                       current_schema());
    END LOOP;
END $pin$;
SELECT pin_search_paths();
SELECT apply_role_grants();

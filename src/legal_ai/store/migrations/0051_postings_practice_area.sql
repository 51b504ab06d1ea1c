-- 0051_postings_practice_area: the lexical leg's postings carry their unit's practice area
-- (issue 39 item 1), so a search filtered by practice area reads, counts and scores only the
-- postings of its filter: the covering index is keyed (source, term, practice_area, unit_id),
-- a term's postings under one practice area are one range of it, and without a filter a term's
-- postings are still one range (every practice area in turn). A unit whose item has none, and
-- the attached citations (no item), are filed under ''. The area is the item's: a unit written
-- takes its item's; an item's practice area changed moves its units' postings; an item deleted
-- takes its units' postings with it (before the cascade removes the units, when the item's row
-- is still there to say where they are filed).
--
-- `lexical_area_df` counts, per table, term and practice area, the units holding the term: the
-- lexical leg's candidate budget under a practice-area filter is counted from it in the same
-- one look-up as the lexicon's, whatever the area's size. Kept by statement triggers on the
-- postings themselves, so every path that writes a posting (the units' and items' triggers,
-- lexicon_rebuild()) keeps it.

ALTER TABLE lexical_postings DROP CONSTRAINT lexical_postings_pkey;
ALTER TABLE lexical_postings ADD COLUMN practice_area text NOT NULL DEFAULT '';

-- 0043's function, now with the practice area: TG_ARGV[0] is the partition column ('corpus',
-- 'source_kind' or '' for unpartitioned tables), as before.
CREATE OR REPLACE FUNCTION lexical_postings_apply() RETURNS trigger
LANGUAGE plpgsql AS $$
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
END $$;

-- An item's practice area changed: its units' postings move to the new one. An item deleted:
-- its units' postings go first (BEFORE: the cascade then deletes the units, whose own trigger
-- no longer finds the item). Named to fire after the items' gates (documents_*_gate: BEFORE
-- triggers fire in name order), so a refused delete raises before anything is removed.
CREATE FUNCTION lexical_postings_item() RETURNS trigger
LANGUAGE plpgsql AS $$
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
END $$;

DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['documents', 'case_law', 'digests']
    LOOP
        EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I FOR EACH ROW'
                       ' WHEN (OLD.practice_area IS DISTINCT FROM NEW.practice_area)'
                       ' EXECUTE FUNCTION lexical_postings_item()', t || '_refile_postings', t);
        EXECUTE format('CREATE TRIGGER %I BEFORE DELETE ON %I FOR EACH ROW'
                       ' EXECUTE FUNCTION lexical_postings_item()', t || '_unfile_postings', t);
    END LOOP;
END $$;

-- The postings of every unit, from scratch, each under its item's practice area (and the
-- counts, by their triggers: emptied first, so that the delete has none to count down).
CREATE OR REPLACE FUNCTION lexical_postings_rebuild() RETURNS void
LANGUAGE plpgsql AS $$
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

CREATE TABLE lexical_area_df (
    source        text    NOT NULL,
    term          text    NOT NULL,
    practice_area text    NOT NULL,
    df            integer NOT NULL,
    PRIMARY KEY (source, term, practice_area)
);

CREATE FUNCTION lexical_area_df_apply() RETURNS trigger
LANGUAGE plpgsql AS $$
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
CREATE TRIGGER lexical_postings_df_ins AFTER INSERT ON lexical_postings
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION lexical_area_df_apply();
CREATE TRIGGER lexical_postings_df_del AFTER DELETE ON lexical_postings
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION lexical_area_df_apply();
CREATE TRIGGER lexical_postings_df_upd AFTER UPDATE ON lexical_postings
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION lexical_area_df_apply();

-- The backfill (the counts follow by the triggers above), then the index (built once over the
-- rebuilt table).
SELECT lexical_postings_rebuild();
CREATE UNIQUE INDEX lexical_postings_term_area ON lexical_postings
    (source, term, practice_area, unit_id) INCLUDE (tf, token_count);

-- Grants: whoever changes an item's practice area moves its postings, and whoever writes a
-- posting keeps the counts (the chair and the worker, who write the units and items); every
-- role reads the counts (an agent's search); the agent-only login writes neither. 0043's
-- lists, wrapped.
ALTER FUNCTION role_write_grants() RENAME TO apply_role_grants_writes_before_0051;
ALTER FUNCTION role_read_tables() RENAME TO apply_role_grants_reads_before_0051;
CREATE FUNCTION role_read_tables() RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
    SELECT apply_role_grants_reads_before_0051() || ARRAY['lexical_area_df']
$$;
CREATE FUNCTION role_write_grants()
RETURNS TABLE (grantee text, table_name text, privilege text, columns text[])
LANGUAGE sql IMMUTABLE AS $$
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

DO $pin$
DECLARE
    f text;
BEGIN
    FOREACH f IN ARRAY ARRAY['role_write_grants()', 'role_read_tables()']
    LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = pg_catalog, %I, pg_temp', f,
                       current_schema());
    END LOOP;
END $pin$;
SELECT pin_search_paths();
SELECT apply_role_grants();

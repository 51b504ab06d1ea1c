-- 0003_lexicon: document frequency of every analyzed term, per searchable table (partition),
-- kept by statement triggers. The lexical leg drops query terms that occur in too large a share
-- of the units (they rank nothing and make ts_rank_cd score most of the table).
CREATE TABLE lexicon (
    source text    NOT NULL,
    term   text    NOT NULL,
    df     integer NOT NULL,
    PRIMARY KEY (source, term)
);

CREATE TABLE lexicon_size (
    source text PRIMARY KEY,
    units  integer NOT NULL
);

-- TG_ARGV[0]: the partition column ('corpus', 'source_kind' or '' for unpartitioned tables).
CREATE FUNCTION lexicon_apply() RETURNS trigger
LANGUAGE plpgsql AS $$
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
            'WITH gone AS (SELECT %s AS source, count(*) AS n FROM old_rows GROUP BY 1)'
            ' UPDATE lexicon_size s SET units = s.units - g.n FROM gone g WHERE s.source = g.source',
            source_expr);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        EXECUTE format(
            'INSERT INTO lexicon (source, term, df)'
            ' SELECT %s, w, count(*) FROM new_rows, unnest(tsvector_to_array(tsv)) w'
            ' GROUP BY 1, 2 ORDER BY 1, 2'
            ' ON CONFLICT (source, term) DO UPDATE SET df = lexicon.df + EXCLUDED.df', source_expr);
        EXECUTE format(
            'INSERT INTO lexicon_size (source, units) SELECT %s, count(*) FROM new_rows GROUP BY 1'
            ' ORDER BY 1 ON CONFLICT (source) DO UPDATE SET units = lexicon_size.units + EXCLUDED.units',
            source_expr);
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
                       ' FOR EACH STATEMENT EXECUTE FUNCTION lexicon_apply(%L)',
                       t.tbl || '_lexicon_ins', t.tbl, t.part);
        EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows'
                       ' FOR EACH STATEMENT EXECUTE FUNCTION lexicon_apply(%L)',
                       t.tbl || '_lexicon_del', t.tbl, t.part);
        EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows'
                       ' NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION lexicon_apply(%L)',
                       t.tbl || '_lexicon_upd', t.tbl, t.part);
    END LOOP;
END $$;

-- Rebuild from scratch (after a bulk load that bypassed triggers).
CREATE FUNCTION lexicon_rebuild() RETURNS void
LANGUAGE plpgsql AS $$
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
    INSERT INTO lexicon_size SELECT 'document_chunks_' || corpus, count(*) FROM document_chunks GROUP BY 1;
    INSERT INTO lexicon_size SELECT 'case_law_chunks_' || source_kind, count(*) FROM case_law_chunks GROUP BY 1;
    INSERT INTO lexicon_size SELECT 'case_law_principles_' || source_kind, count(*) FROM case_law_principles GROUP BY 1;
    INSERT INTO lexicon_size SELECT 'digest_chunks', count(*) FROM digest_chunks;
    INSERT INTO lexicon_size SELECT 'case_precedents', count(*) FROM case_precedents;
END $$;

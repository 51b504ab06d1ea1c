-- 0005_bm25: what the lexical leg needs to rank by BM25 instead of ts_rank_cd (which has no
-- idf): each unit's term frequencies and token count, computed by the database from `analyzed`,
-- and each table's total tokens (average length) beside its unit count.
DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['document_chunks', 'case_law_chunks', 'case_law_principles',
                             'digest_chunks', 'case_precedents']
    LOOP
        EXECUTE format('ALTER TABLE %I ADD COLUMN term_freqs jsonb NOT NULL DEFAULT ''{}'','
                       ' ADD COLUMN token_count integer NOT NULL DEFAULT 0', t);
    END LOOP;
END $$;

CREATE FUNCTION unit_term_stats() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    SELECT coalesce(jsonb_object_agg(lexeme, array_length(positions, 1)), '{}'::jsonb),
           coalesce(sum(array_length(positions, 1)), 0)
    INTO NEW.term_freqs, NEW.token_count
    FROM unnest(to_tsvector('simple'::regconfig, NEW.analyzed));
    RETURN NEW;
END $$;

DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['document_chunks', 'case_law_chunks', 'case_law_principles',
                             'digest_chunks', 'case_precedents']
    LOOP
        EXECUTE format('CREATE TRIGGER %I BEFORE INSERT OR UPDATE OF analyzed ON %I'
                       ' FOR EACH ROW EXECUTE FUNCTION unit_term_stats()', t || '_term_stats', t);
        -- backfill (fires the trigger; the lexicon triggers see an unchanged tsv)
        EXECUTE format('UPDATE %I SET analyzed = analyzed', t);
    END LOOP;
END $$;

ALTER TABLE lexicon_size ADD COLUMN tokens bigint NOT NULL DEFAULT 0;

CREATE OR REPLACE FUNCTION lexicon_apply() RETURNS trigger
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

CREATE OR REPLACE FUNCTION lexicon_rebuild() RETURNS void
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

SELECT lexicon_rebuild();

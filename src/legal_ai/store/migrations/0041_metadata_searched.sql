-- 0041_metadata_searched: a decision's headnote, summary and tags are searched (issue 34 item 5;
-- the specification's `meta_tsv`). Completeness demands them (INV-RET2, 0030); until now no leg
-- read them.
--
-- * case_law.meta_text: the three fields as one text (headnote, summary, the tags comma-joined;
--   NULL when all are empty) and meta_hash, its sha256 — generated, so every write of a field,
--   by any path or by SQL, changes them.
-- * The decision's FIRST chunk (ordinal 0) carries them, with its own span untouched (its text,
--   char_start, char_end and text_hash stay the stored text's: provenance stays exact):
--   - meta_hash: the decision's current one, always derived by the database (a trigger on the
--     chunk, and one on case_law when a field changes); NULL on every other chunk.
--   - meta_analyzed + meta_analyzed_hash: the metadata through the application's Hebrew analyzer
--     (the database has no Hebrew analyzer) and which metadata that was. The tsv and the BM25
--     term frequencies take them only while meta_analyzed_hash = meta_hash, their frequencies
--     counted twice (a title's weight against the body: BM25F's field weight), so an edit of a
--     field drops the old words from the lexical leg at once, in the edit's statement.
--   - meta_embedded_hash: which metadata the embedding was made with (the semantic text is the
--     metadata, a blank line, then the chunk's text). A chunk embedded with metadata that is no
--     longer the decision's is stale (not searchable) until it is embedded again; one embedded
--     without metadata stays searchable on its own text. A new embedding written without saying
--     what it folded counts as without metadata.
--   Every write path of the application (ingest, the enricher, the chair's edit, revert, approve)
--   folds the new metadata in within its own transaction; an edit by SQL is folded by `legal-ai
--   reindex` (`legal-ai health` counts what waits: `metadata_unfolded`).

CREATE FUNCTION decision_meta_text(headnote text, summary text, tags text[]) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT nullif(concat_ws(E'\n', nullif(btrim(headnote), ''), nullif(btrim(summary), ''),
                            nullif(btrim(array_to_string(tags, ', ')), '')), '')
$$;

-- sha256 of the UTF-8 text (convert_to is only stable: the database's encoding is UTF-8 always).
CREATE FUNCTION decision_meta_hash(meta_text text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT encode(sha256(convert_to(meta_text, 'UTF8')), 'hex')
$$;

ALTER TABLE case_law
    ADD COLUMN meta_text text GENERATED ALWAYS AS (decision_meta_text(headnote, summary, tags)) STORED,
    ADD COLUMN meta_hash text GENERATED ALWAYS AS (
        decision_meta_hash(decision_meta_text(headnote, summary, tags))) STORED;

ALTER TABLE case_law_chunks
    ADD COLUMN meta_hash text,
    ADD COLUMN meta_analyzed text NOT NULL DEFAULT '',
    ADD COLUMN meta_analyzed_hash text,
    ADD COLUMN meta_embedded_hash text;

-- The analyzed text the lexical leg indexes: the chunk's, then its decision's metadata while it
-- is the current one.
CREATE FUNCTION chunk_lexical_text(analyzed text, meta_analyzed text, meta_analyzed_hash text,
                                   meta_hash text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN meta_hash IS NOT NULL AND meta_analyzed_hash = meta_hash
                     AND meta_analyzed <> ''
                THEN analyzed || ' ' || meta_analyzed ELSE analyzed END
$$;

ALTER TABLE case_law_chunks ALTER COLUMN tsv SET EXPRESSION AS (
    to_tsvector('simple'::regconfig,
                chunk_lexical_text(analyzed, meta_analyzed, meta_analyzed_hash, meta_hash)));
ALTER TABLE case_law_chunks ALTER COLUMN stale SET EXPRESSION AS (
    embedded_hash IS DISTINCT FROM text_hash
    OR (meta_embedded_hash IS NOT NULL AND meta_embedded_hash IS DISTINCT FROM meta_hash));

-- BEFORE INSERT/UPDATE of a case-law chunk: its meta_hash derived from its decision, an
-- embedding written without its metadata marked so, and the BM25 statistics (0005's) with the
-- current metadata's terms at twice their frequency.
CREATE FUNCTION case_law_chunk_meta() RETURNS trigger
LANGUAGE plpgsql AS $$
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

DROP TRIGGER case_law_chunks_term_stats ON case_law_chunks;
CREATE TRIGGER case_law_chunks_term_stats BEFORE INSERT OR UPDATE ON case_law_chunks
    FOR EACH ROW EXECUTE FUNCTION case_law_chunk_meta();

-- A field of a decision changed: its first chunk takes the new meta_hash (the old metadata's
-- words leave the lexical leg; an embedding made with it is stale).
CREATE FUNCTION case_law_meta_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE case_law_chunks SET meta_hash = NEW.meta_hash
    WHERE case_law_id = NEW.id AND source_kind = NEW.source_kind AND ordinal = 0
      AND meta_hash IS DISTINCT FROM NEW.meta_hash;
    RETURN NULL;
END $$;

CREATE TRIGGER case_law_meta_changed AFTER UPDATE OF headnote, summary, tags ON case_law
    FOR EACH ROW WHEN (OLD.meta_hash IS DISTINCT FROM NEW.meta_hash)
    EXECUTE FUNCTION case_law_meta_changed();

-- The decisions stored before: their first chunks learn their metadata (`legal-ai reindex`
-- folds it in; they stay searchable on their own text meanwhile).
UPDATE case_law_chunks u SET meta_hash = c.meta_hash
FROM case_law c
WHERE u.ordinal = 0 AND c.id = u.case_law_id AND c.source_kind = u.source_kind
  AND c.meta_hash IS NOT NULL;

SELECT pin_search_paths();

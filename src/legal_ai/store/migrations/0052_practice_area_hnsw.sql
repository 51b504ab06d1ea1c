-- 0052: a practice area's own HNSW index for the filtered semantic leg (issue 39 item 3).
--
-- Under a selective practice-area filter (5 % of a partition) pgvector's iterative scan walks the
-- whole partition's graph and throws away most of what it finds: 37 ms at 200,000 chunks. A
-- partial HNSW index of the area's chunks holds only them (docs/benchmarks.md). A partial index
-- can name only the table's own columns, so each chunk now carries its item's practice area:
--
--  * `practice_area` on document_chunks and case_law_chunks, set by the database from the chunk's
--    item on every insert and update of the chunk (whatever a writer puts there), and carried to
--    the item's chunks when the item's practice area changes (by any path: a BEFORE trigger of
--    documents derives it from the case, so no column list narrows the trigger);
--  * `practice_area_indexes()`: one partial HNSW index per (chunk partition, embedder, practice
--    area) for every area that holds at most half of its partition's embedded chunks (a larger
--    area gains nothing over the partition's own index: its iterative scan keeps most of what it
--    reads), made when missing; returns how many it made. Run here for the areas that exist, and
--    by `legal-ai db area-indexes` (the database's owner) when a new area appears.
--
-- The semantic leg names the area as a constant (retrieval/legs.py) so the planner can prove the
-- index's predicate; the item's own `practice_area = ...` stays in the statement, so the answer
-- is the same with or without an area's index.

ALTER TABLE document_chunks ADD COLUMN practice_area text;
ALTER TABLE case_law_chunks ADD COLUMN practice_area text;

CREATE FUNCTION document_chunk_practice_area() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.practice_area := (SELECT d.practice_area FROM documents d WHERE d.id = NEW.document_id);
    RETURN NEW;
END $$;

CREATE FUNCTION case_law_chunk_practice_area() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.practice_area := (SELECT c.practice_area FROM case_law c WHERE c.id = NEW.case_law_id);
    RETURN NEW;
END $$;

CREATE TRIGGER document_chunks_practice_area BEFORE INSERT OR UPDATE ON document_chunks
    FOR EACH ROW EXECUTE FUNCTION document_chunk_practice_area();
CREATE TRIGGER case_law_chunks_practice_area BEFORE INSERT OR UPDATE ON case_law_chunks
    FOR EACH ROW EXECUTE FUNCTION case_law_chunk_practice_area();

CREATE FUNCTION documents_practice_area_to_chunks() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE document_chunks SET practice_area = NEW.practice_area
     WHERE document_id = NEW.id AND corpus = NEW.corpus;
    RETURN NULL;
END $$;

CREATE FUNCTION case_law_practice_area_to_chunks() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE case_law_chunks SET practice_area = NEW.practice_area
     WHERE case_law_id = NEW.id AND source_kind = NEW.source_kind;
    RETURN NULL;
END $$;

CREATE TRIGGER documents_practice_area_to_chunks AFTER UPDATE ON documents
    FOR EACH ROW WHEN (OLD.practice_area IS DISTINCT FROM NEW.practice_area)
    EXECUTE FUNCTION documents_practice_area_to_chunks();
CREATE TRIGGER case_law_practice_area_to_chunks AFTER UPDATE ON case_law
    FOR EACH ROW WHEN (OLD.practice_area IS DISTINCT FROM NEW.practice_area)
    EXECUTE FUNCTION case_law_practice_area_to_chunks();

-- The chunks that exist take their items' areas (the BEFORE triggers above set them).
UPDATE document_chunks u SET practice_area = d.practice_area
  FROM documents d WHERE d.id = u.document_id AND d.practice_area IS NOT NULL;
UPDATE case_law_chunks u SET practice_area = c.practice_area
  FROM case_law c WHERE c.id = u.case_law_id AND c.practice_area IS NOT NULL;

CREATE FUNCTION practice_area_indexes() RETURNS integer
LANGUAGE plpgsql AS $$
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

SELECT practice_area_indexes();

-- Making indexes stays the owner's (0033's owner_only_function, wrapped as 0043 wraps it).
ALTER FUNCTION owner_only_function(text) RENAME TO apply_role_grants_owner_only_before_0052;
CREATE FUNCTION owner_only_function(name text) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
    SELECT apply_role_grants_owner_only_before_0052(name) OR name = 'practice_area_indexes'
$$;
DO $pin$
BEGIN
    EXECUTE format('ALTER FUNCTION owner_only_function(text)'
                   ' SET search_path = pg_catalog, %I, pg_temp', current_schema());
END $pin$;

SELECT pin_search_paths();
SELECT apply_role_grants();

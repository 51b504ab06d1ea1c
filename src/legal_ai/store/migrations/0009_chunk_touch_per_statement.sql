-- 0009: chunks recompute their parent item once per statement, not once per chunk row.
-- 0001's row trigger re-ran the item's completeness check for every chunk written (an item of
-- 40 chunks was checked 40 times); with transition tables each parent a statement touched is
-- checked once. Chunk writes go through the partitioned root (store/items.py), where statement
-- triggers fire. A statement trigger with transition tables takes one event, hence three.
CREATE FUNCTION chunks_touch_parents() RETURNS trigger
LANGUAGE plpgsql AS $$
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

DROP TRIGGER document_chunks_touch ON document_chunks;
DROP TRIGGER case_law_chunks_touch ON case_law_chunks;
DROP TRIGGER digest_chunks_touch ON digest_chunks;
DROP FUNCTION chunk_touch_parent();

DO $$
DECLARE
    t record;
BEGIN
    FOR t IN SELECT * FROM (VALUES
        ('document_chunks', 'documents', 'document_id'),
        ('case_law_chunks', 'case_law', 'case_law_id'),
        ('digest_chunks', 'digests', 'digest_id')) AS v(tbl, parent, fk)
    LOOP
        EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows'
                       ' FOR EACH STATEMENT EXECUTE FUNCTION chunks_touch_parents(%L, %L)',
                       t.tbl || '_touch_ins', t.tbl, t.parent, t.fk);
        EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows'
                       ' FOR EACH STATEMENT EXECUTE FUNCTION chunks_touch_parents(%L, %L)',
                       t.tbl || '_touch_del', t.tbl, t.parent, t.fk);
        EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows'
                       ' NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION chunks_touch_parents(%L, %L)',
                       t.tbl || '_touch_upd', t.tbl, t.parent, t.fk);
    END LOOP;
END $$;

-- 0036_case_files_and_cache: a case file is the operator's or the chair's, and a planted
-- embedding is never served (issue 31, items 2 and 9; docs/security.md). (The chair's token for
-- the CLI needs no table: its hash is a row of the desk's accounts, accounts.py.)
--
-- 1. Case files: a case's documents (corpus `case`: protocols, appeal notices, pleadings) and
--    their chunks are written by the operator's ingest, the chair or the system's stages; never
--    by an agent (its role, or a login that is an agent's only).
-- 2. embedding_cache: each row records the role that wrote it (`written_by`, forced from the
--    session) and whether that is the system (`by_system`: the login's own role or the worker's);
--    the cache serves only the system's rows (store/cache.py), and a system write replaces a
--    row someone else put there. Rows of before this migration cannot tell who wrote them: they
--    are not the system's (embedded again when next needed).

-- ---------------------------------------------------------------------------------------------
-- Case files are not an agent's to write.
CREATE FUNCTION case_files_gate() RETURNS trigger
LANGUAGE plpgsql AS $$
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
CREATE TRIGGER documents_case_gate BEFORE INSERT OR UPDATE OR DELETE ON documents
    FOR EACH ROW EXECUTE FUNCTION case_files_gate();
CREATE TRIGGER document_chunks_case_gate BEFORE INSERT OR UPDATE OR DELETE ON document_chunks
    FOR EACH ROW EXECUTE FUNCTION case_files_gate();

-- ---------------------------------------------------------------------------------------------
-- The embedding cache knows who wrote each vector.
ALTER TABLE embedding_cache
    ADD COLUMN written_by text NOT NULL DEFAULT 'unknown (before migration 0036)',
    ADD COLUMN by_system boolean NOT NULL DEFAULT false;

CREATE FUNCTION embedding_cache_writer() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.written_by := current_user;
    NEW.by_system := NOT acting_as_request() OR acting_as_worker();
    NEW.created_at := now();
    RETURN NEW;
END $$;
CREATE TRIGGER embedding_cache_writer BEFORE INSERT OR UPDATE ON embedding_cache
    FOR EACH ROW EXECUTE FUNCTION embedding_cache_writer();

SELECT pin_search_paths();

-- 0046_original_files: the file the chair uploaded, kept as it came (issue 37 item 16).
--
-- Until now the store kept only the text read from an upload (and a scan's PDF, in
-- scanned_files, for OCR). From now on a draft's, a final's and a case document's file is kept
-- here, once per content (keyed by its sha256, which the row must hash to), up to 32 MiB; a
-- larger file, and every item uploaded before this migration, has no original (the desk says
-- so). A draft is linked to its file by draft_originals: written by the server's own login
-- (store/db.Store.as_login), never by the request's role, so an agent's draft cannot point at
-- another file. A final and a case document name theirs by their own file_sha256.
--
-- Grants: the chair reads both (the desk's download); no role writes them (the server's login
-- does), and the agent-only login reads neither: an original may hold what the text left out
-- (tracked changes, comments).

CREATE TABLE original_files (
    file_sha256 text PRIMARY KEY CHECK (file_sha256 ~ '^[0-9a-f]{64}$'),
    content     bytea NOT NULL CHECK (length(content) BETWEEN 1 AND 33554432),
    bytes       integer GENERATED ALWAYS AS (length(content)) STORED,
    file_name   text NOT NULL CHECK (btrim(file_name) <> '' AND length(file_name) <= 255),
    created_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT content_is_its_hash
        CHECK (encode(pg_catalog.sha256(content), 'hex') = file_sha256)
);

CREATE TABLE draft_originals (
    draft_id    bigint PRIMARY KEY REFERENCES drafts (id) ON DELETE CASCADE,
    file_sha256 text NOT NULL REFERENCES original_files (file_sha256)
);

ALTER FUNCTION role_write_grants() RENAME TO apply_role_grants_writes_before_0046;

CREATE FUNCTION role_write_grants()
RETURNS TABLE (grantee text, table_name text, privilege text, columns text[])
LANGUAGE sql IMMUTABLE AS $$
    SELECT * FROM apply_role_grants_writes_before_0046()
    UNION ALL
    SELECT * FROM (VALUES
        ('legal_ai_chair', 'original_files', 'SELECT', NULL::text[]),
        ('legal_ai_chair', 'draft_originals', 'SELECT', NULL::text[])) AS v
$$;

DO $pin$
BEGIN
    EXECUTE format('ALTER FUNCTION role_write_grants() SET search_path = pg_catalog, %I, pg_temp',
                   current_schema());
END $pin$;
SELECT pin_search_paths();
SELECT apply_role_grants();

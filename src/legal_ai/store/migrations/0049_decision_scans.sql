-- 0049_decision_scans: a draft or final uploaded as a scan waits for OCR (issue 38 item 1,
-- issue 37 item 0).
--
-- Until now a draft or final that was an image-only PDF was refused ("a scan"). It is now kept
-- (its bytes in scanned_files, once per file, and its OCR job queued like a case document's)
-- and this row remembers the upload: which case, draft or final, the form's fields (labels,
-- date), the file's own name, and who uploaded it (the principal's kind and name as the server
-- authenticated them — never a request's body). When the worker has read the scan, the draft or
-- final is stored through the same service as a text upload (learning/scanned_decisions.py),
-- acting for that principal; the row says it was done (with what the service answered) or why
-- it failed (OCR failed, read nothing, or the service refused the text): `error` in English
-- for the log and the CLI, `error_code` the refusal's code (catalog.py) whose Hebrew the desk
-- shows. A scanned final she cancels on the desk while it waits for OCR is deleted, with its
-- queued OCR job and kept scan when nothing else holds them (scanned_decisions.cancel).
--
-- Only the server's own login writes it (store/db.Store.as_login, in the upload's transaction
-- and in the worker's): no role has a write grant, so an agent's login can neither add a row
-- naming the chair nor change one. The chair reads it (the desk says what waits and what failed).

CREATE TABLE decision_scans (
    id           bigserial PRIMARY KEY,
    kind         text NOT NULL CHECK (kind IN ('draft', 'final')),
    case_number  text NOT NULL CHECK (btrim(case_number) <> ''),
    file_sha256  text NOT NULL REFERENCES scanned_files (file_sha256),
    source_name  text NOT NULL CHECK (btrim(source_name) <> '' AND length(source_name) <= 300),
    fields       jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(fields) = 'object'),
    actor_kind   text NOT NULL CHECK (actor_kind IN ('chair', 'agent', 'operator')),
    actor_name   text NOT NULL CHECK (btrim(actor_name) <> ''),
    status       text NOT NULL DEFAULT 'waiting'
                 CHECK (status IN ('waiting', 'running', 'done', 'failed')),
    error        text,
    error_code   text CHECK (error_code ~ '^[a-z_]+(\.[a-z_]+)*$'),
    result       jsonb,
    created_at   timestamptz NOT NULL DEFAULT now(),
    claimed_at   timestamptz,
    finished_at  timestamptz,
    CONSTRAINT final_is_the_chairs CHECK (kind = 'draft' OR actor_kind IN ('chair', 'operator')),
    CONSTRAINT failed_says_why
        CHECK (status <> 'failed' OR (error IS NOT NULL AND error_code IS NOT NULL))
);
CREATE INDEX decision_scans_open ON decision_scans (file_sha256) WHERE status IN ('waiting', 'running');
CREATE INDEX decision_scans_case ON decision_scans (case_number, created_at DESC);

ALTER FUNCTION role_write_grants() RENAME TO apply_role_grants_writes_before_0049;

CREATE FUNCTION role_write_grants()
RETURNS TABLE (grantee text, table_name text, privilege text, columns text[])
LANGUAGE sql IMMUTABLE AS $$
    SELECT * FROM apply_role_grants_writes_before_0049()
    UNION ALL
    SELECT * FROM (VALUES
        ('legal_ai_chair', 'decision_scans', 'SELECT', NULL::text[])) AS v
$$;

DO $pin$
BEGIN
    EXECUTE format('ALTER FUNCTION role_write_grants() SET search_path = pg_catalog, %I, pg_temp',
                   current_schema());
END $pin$;
SELECT pin_search_paths();
SELECT apply_role_grants();

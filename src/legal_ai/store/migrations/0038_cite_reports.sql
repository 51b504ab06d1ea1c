-- 0038_cite_reports: a cite-check report for every draft version and every final, kept with the
-- version it checked and the library as it was then (issue 33 item 4; docs/verification.md).
--
-- * A row is one check: the draft version (draft_id) or the final (case_law_id and its version)
--   it checked, the text's hash, the check's JSON (each authority with its state, problems,
--   support and treatment, as the check gave them) and `library`: the marker of the library it
--   read (the last item version of the rulings, their count, the last ingest time).
-- * Append-only: no UPDATE, DELETE or TRUNCATE, by anyone (a later ingest never rewrites an old
--   report; a new check is a new row).
-- * The system's own: only the login's own role (the server, the CLI: store/db.Store.as_login)
--   inserts one, when a draft or a final is stored or checked. No request role (an agent, its own
--   login, the chair's role, the worker's) may write one: a report is never somebody's claim of
--   a result. `checked_by` and `created_at` are forced from the session.
-- * Read by the three roles (the desk, the MCP check); named in role_read_tables below. The
--   lists of 0033 (and of any later migration) are kept: this one wraps them.
--   (The checked case's number is `checked_case`, as written then: a renamed case finds its
--   reports through its drafts and its pair, store/cite_reports.py.)

CREATE TABLE cite_reports (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    checked_case  text NOT NULL,
    subject       text NOT NULL CHECK (subject IN ('draft', 'final')),
    draft_id      bigint REFERENCES drafts (id),
    case_law_id   bigint,
    version       integer NOT NULL CHECK (version > 0),
    content_hash  text NOT NULL,
    report        jsonb NOT NULL CHECK (jsonb_typeof(report) = 'object'),
    library       jsonb NOT NULL CHECK (jsonb_typeof(library) = 'object'),
    checked_by    text NOT NULL DEFAULT current_user,
    created_at    timestamptz NOT NULL DEFAULT now(),
    CHECK ((subject = 'draft') = (draft_id IS NOT NULL)),
    CHECK ((subject = 'final') = (case_law_id IS NOT NULL))
);
CREATE INDEX cite_reports_draft_idx ON cite_reports (draft_id, id);
CREATE INDEX cite_reports_final_idx ON cite_reports (case_law_id, version, id);

CREATE FUNCTION cite_report_gate() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF acting_as_request() THEN
        RAISE EXCEPTION 'a cite-check report is the system''s own, written when a draft or a '
            'final is stored or checked; not % may write one', current_user
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    NEW.checked_by := current_user;
    NEW.created_at := now();
    RETURN NEW;
END $$;
CREATE TRIGGER cite_reports_gate BEFORE INSERT ON cite_reports
    FOR EACH ROW EXECUTE FUNCTION cite_report_gate();
CREATE TRIGGER cite_reports_append_only BEFORE UPDATE OR DELETE ON cite_reports
    FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER cite_reports_no_truncate BEFORE TRUNCATE ON cite_reports
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();

-- ---------------------------------------------------------------------------------------------
-- The allowlist of 0033, kept whole: the lists as they stand (0033's, or a later migration's
-- replacement) are renamed under apply_role_grants_… (owner-only by 0033's owner_only_function)
-- and the public names return them plus this migration's rows. No role writes cite_reports; the
-- three read it.
ALTER FUNCTION role_write_grants() RENAME TO apply_role_grants_writes_before_0038;
ALTER FUNCTION role_read_tables() RENAME TO apply_role_grants_reads_before_0038;

CREATE FUNCTION role_write_grants()
RETURNS TABLE (grantee text, table_name text, privilege text, columns text[])
LANGUAGE sql IMMUTABLE AS $$
    SELECT * FROM apply_role_grants_writes_before_0038()
$$;

CREATE FUNCTION role_read_tables() RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
    SELECT apply_role_grants_reads_before_0038() || ARRAY['cite_reports']
$$;

DO $pin$
DECLARE
    f text;
BEGIN
    FOREACH f IN ARRAY ARRAY['cite_report_gate()', 'role_write_grants()', 'role_read_tables()']
    LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = pg_catalog, %I, pg_temp', f,
                       current_schema());
    END LOOP;
END $pin$;
SELECT pin_search_paths();
SELECT apply_role_grants();

-- Issue 21 items 1-3: one identity per ruling. A ruling's identity is its whole case number —
-- proceeding, district, number/year — as text/case_numbers.normalize_case_number spells it (the
-- district folded to one spelling). Every lookup of a ruling (citation links, missing precedents,
-- digests, the reference leg, the copy check) goes by these columns, filled at ingest by the
-- same normalizer; a citation that fits several identities is ambiguous: it stays unlinked, its
-- candidates listed, until the chair picks one.

ALTER TABLE case_law
    ADD COLUMN ruling_proceeding text,
    ADD COLUMN ruling_district   text,
    ADD COLUMN ruling_number     text,
    -- Other names the ruling is cited by (its reporter citation, `פ"ד מד(1) 565`), normalized
    -- as text/citations.reporter_ref writes them.
    ADD COLUMN aliases           text[] NOT NULL DEFAULT '{}';
CREATE INDEX case_law_ruling_number_idx ON case_law (ruling_number) WHERE ruling_number IS NOT NULL;
CREATE INDEX case_law_aliases_idx ON case_law USING gin (aliases);

-- How an authority was linked: by its whole identity (exact), by the one identity of its
-- proceeding and number when it names no district (without_district), by a known alias, or by
-- the chair's own pick (chair). An ambiguous one keeps its candidates and no link.
ALTER TABLE authorities
    ADD COLUMN link_basis text CHECK (link_basis IN ('exact', 'without_district', 'alias', 'chair')),
    ADD COLUMN candidates bigint[] NOT NULL DEFAULT '{}',
    DROP CONSTRAINT authorities_kind_check,
    ADD CONSTRAINT authorities_kind_check CHECK (kind IN ('ruling', 'statute', 'reporter'));

ALTER TABLE missing_precedents
    DROP CONSTRAINT missing_precedents_status_check,
    ADD CONSTRAINT missing_precedents_status_check
        CHECK (status IN ('open', 'resolved', 'ambiguous'));

-- The chair's pick is hers: only her role sets link_basis = 'chair' (or changes what she
-- linked); a link removed (its ruling deleted: ON DELETE SET NULL) clears its basis. Her pick is
-- audited by the database.
CREATE FUNCTION authority_link_gate() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.case_law_id IS NULL THEN
        NEW.link_basis := NULL;
        RETURN NEW;
    END IF;
    IF (NEW.link_basis = 'chair' OR OLD.link_basis = 'chair')
       AND (NEW.link_basis IS DISTINCT FROM OLD.link_basis
            OR NEW.case_law_id IS DISTINCT FROM OLD.case_law_id)
       AND NOT acting_as_chair() THEN
        RAISE EXCEPTION 'only the chair picks the ruling an ambiguous citation names (running as %)',
            current_user USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER authorities_link_gate BEFORE UPDATE ON authorities
    FOR EACH ROW EXECUTE FUNCTION authority_link_gate();

CREATE FUNCTION authority_link_audit() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO learning_audit (actor, action, from_status, to_status, details)
    VALUES ('chair', 'citation_linked', OLD.link_basis, NEW.link_basis,
            jsonb_build_object('authority_id', NEW.id, 'ref', NEW.ref,
                               'case_law_id', NEW.case_law_id, 'candidates', OLD.candidates));
    RETURN NEW;
END $$;
CREATE TRIGGER authorities_link_audit AFTER UPDATE ON authorities
    FOR EACH ROW WHEN (NEW.link_basis = 'chair' AND (OLD.link_basis IS DISTINCT FROM 'chair'
                       OR OLD.case_law_id IS DISTINCT FROM NEW.case_law_id))
    EXECUTE FUNCTION authority_link_audit();

-- The re-keying of what was stored before this migration: the migration marks it pending; the
-- application runs it with the one normalizer right after migrating (learning/identity.py) and
-- keeps its report here, shown by `legal-ai health` until someone has seen it.
CREATE TABLE library_rekeys (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    status     text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done')),
    report     jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now(),
    done_at    timestamptz,
    seen_at    timestamptz,
    seen_by    text
);
INSERT INTO library_rekeys (status) VALUES ('pending');

-- The citation graph is the system's (and the chair's pick): an agent's role writes none of it.
ALTER FUNCTION apply_role_grants() RENAME TO apply_role_grants_0027;

CREATE FUNCTION apply_role_grants() RETURNS boolean
LANGUAGE plpgsql AS $grants$
DECLARE
    granted boolean := apply_role_grants_0027();
    t text;
BEGIN
    IF NOT granted THEN
        RETURN false;
    END IF;
    FOREACH t IN ARRAY ARRAY['authorities', 'decision_citations', 'missing_precedents',
                             'library_rekeys']
    LOOP
        EXECUTE format('REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON %I FROM legal_ai_agent', t);
    END LOOP;
    RETURN true;
END $grants$;

DO $pin$
BEGIN
    EXECUTE format('ALTER FUNCTION authority_link_gate() SET search_path = pg_catalog, %I, pg_temp',
                   current_schema());
    EXECUTE format('ALTER FUNCTION authority_link_audit() SET search_path = pg_catalog, %I, pg_temp',
                   current_schema());
    EXECUTE format('ALTER FUNCTION apply_role_grants() SET search_path = %I, pg_catalog, pg_temp',
                   current_schema());
END $pin$;

SELECT apply_role_grants();

-- 0040_principle_cap_per_decision: at most HALACHA_PANEL_MAX_NEW new principles per decision
-- across all its text versions, the value the deployment recorded (issue 34 item 4; INV-LRN7).
--
-- Until now (0028) the cap counted the principles one transaction wrote, read its value from
-- the extracting session's own setting (`legal_ai.principle_max_new`, which any session may
-- set) and did not count a principle without a canonical link: each new text version of a
-- decision could add five more.
--
-- * deployment_settings: the deployment's values, recorded once by the application's login
--   (App on first use inserts what is absent; `legal-ai db migrate` records the deployment's
--   current value). No role writes it; every role reads it. principle_cap_value() is the cap
--   (5, the setting's default, until a value is recorded).
-- * case_law_principles.cap_counted: fixed when the row is written (an UPDATE keeps it): a
--   principle not written by the chair that is not an occurrence of a canonical another
--   principle already has (a link). A principle without a canonical link is counted.
-- * A deferred constraint trigger, at commit, refuses a transaction after which a decision has
--   more counted principles that are not rejected or vetoed than the cap (all its versions, all
--   time), serialized per decision by an advisory lock; the chair's own principles are not
--   capped. It runs on insert, and on an update that makes a counted principle live again or
--   moves it to another decision.

CREATE TABLE deployment_settings (
    name        text PRIMARY KEY CHECK (name IN ('halacha_panel_max_new')),
    value       integer NOT NULL CHECK (value BETWEEN 0 AND 50),
    recorded_at timestamptz NOT NULL DEFAULT now(),
    recorded_by text NOT NULL DEFAULT current_user
);

CREATE FUNCTION principle_cap_value() RETURNS integer
LANGUAGE sql STABLE AS $$
    SELECT coalesce((SELECT s.value FROM deployment_settings s
                     WHERE s.name = 'halacha_panel_max_new'), 5)
$$;

ALTER TABLE case_law_principles ADD COLUMN cap_counted boolean NOT NULL DEFAULT false;

-- The principles already there: counted unless the chair wrote them (no panel votes, her
-- review at the start) or they are a later occurrence of a canonical.
UPDATE case_law_principles p SET cap_counted = true
WHERE NOT (p.votes IS NULL AND p.reviewed_by = 'chair')
  AND NOT EXISTS (SELECT 1 FROM case_law_principles q
                  WHERE p.canonical_id IS NOT NULL AND q.canonical_id = p.canonical_id
                    AND q.source_kind = p.source_kind AND q.id < p.id);

DROP TRIGGER case_law_principles_cap ON case_law_principles;
DROP FUNCTION principle_cap();

CREATE FUNCTION principle_cap_mark() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        NEW.cap_counted := OLD.cap_counted;  -- fixed when written
        RETURN NEW;
    END IF;
    NEW.cap_counted := NOT coalesce(acting_as_chair(), false)
        AND NOT (NEW.canonical_id IS NOT NULL AND EXISTS (
            SELECT 1 FROM case_law_principles p
            WHERE p.canonical_id = NEW.canonical_id AND p.source_kind = NEW.source_kind));
    RETURN NEW;
END $$;
CREATE TRIGGER case_law_principles_cap_mark BEFORE INSERT OR UPDATE ON case_law_principles
    FOR EACH ROW EXECUTE FUNCTION principle_cap_mark();

CREATE FUNCTION principle_cap_check() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    cap integer;
    taken integer;
BEGIN
    IF coalesce(acting_as_chair(), false) THEN
        RETURN NULL;
    END IF;
    PERFORM pg_catalog.pg_advisory_xact_lock(
        pg_catalog.hashtext('legal_ai:principle_cap:' || NEW.source_kind || ':' || NEW.case_law_id));
    -- the row as it stands at commit: a principle the panel rejected since takes no place
    IF NOT EXISTS (SELECT 1 FROM case_law_principles p
                   WHERE p.id = NEW.id AND p.source_kind = NEW.source_kind
                     AND p.case_law_id = NEW.case_law_id AND p.cap_counted
                     AND p.review_status NOT IN ('rejected', 'vetoed')) THEN
        RETURN NULL;
    END IF;
    cap := principle_cap_value();
    SELECT count(*) INTO taken FROM case_law_principles p
    WHERE p.case_law_id = NEW.case_law_id AND p.source_kind = NEW.source_kind
      AND p.cap_counted AND p.review_status NOT IN ('rejected', 'vetoed');
    IF taken > cap THEN
        RAISE EXCEPTION 'principle cap: decision % would have % new principles over all its versions (the cap is %, HALACHA_PANEL_MAX_NEW as recorded)',
            NEW.case_law_id, taken, cap
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER case_law_principles_cap AFTER INSERT ON case_law_principles
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (NEW.cap_counted) EXECUTE FUNCTION principle_cap_check();
CREATE CONSTRAINT TRIGGER case_law_principles_cap_again
    AFTER UPDATE OF review_status, case_law_id ON case_law_principles
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW
    WHEN (NEW.cap_counted AND (NEW.case_law_id <> OLD.case_law_id
          OR (OLD.review_status IN ('rejected', 'vetoed')
              AND NEW.review_status NOT IN ('rejected', 'vetoed'))))
    EXECUTE FUNCTION principle_cap_check();

-- Read by every role (the trigger runs as the writer; the extraction reads the cap), written
-- by none: the read list as it stands (0033's and the later migrations' additions, renamed under
-- apply_role_grants_…, owner-only) plus deployment_settings, as 0038 extends it.
ALTER FUNCTION role_read_tables() RENAME TO apply_role_grants_reads_before_0040;

CREATE FUNCTION role_read_tables() RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
    SELECT apply_role_grants_reads_before_0040() || ARRAY['deployment_settings']
$$;
DO $pin$
BEGIN
    EXECUTE format('ALTER FUNCTION role_read_tables() SET search_path = pg_catalog, %I, pg_temp',
                   current_schema());
END $pin$;

SELECT pin_search_paths();

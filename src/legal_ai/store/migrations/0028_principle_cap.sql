-- Issue 21 item 5: the cap of LEGAL_AI_HALACHA_PANEL_MAX_NEW new principles per item, held by the
-- database as well as by the extraction (learning/principles.py `_within_cap`).
--
-- A new principle not written by the chair (the panel's extraction; its votes come after the
-- insert, from principle_votes), not rejected, that is the first of its canonical statement — a
-- link to an existing canonical is an occurrence, not a new principle — counts against its
-- ruling's cap for the transaction that writes it (one extraction of one item): at most
-- `legal_ai.principle_max_new` of them (set by the extraction with set_config(..., true);
-- unset: 5, the setting's default). The chair's own principles are not capped.

CREATE OR REPLACE FUNCTION principle_cap() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    cap integer := coalesce(nullif(current_setting('legal_ai.principle_max_new', true), '')::integer, 5);
    taken integer;
BEGIN
    IF acting_as_chair() OR NEW.review_status = 'rejected' THEN
        RETURN NEW;
    END IF;
    IF NEW.canonical_id IS NOT NULL AND EXISTS (
        SELECT 1 FROM case_law_principles p WHERE p.canonical_id = NEW.canonical_id
    ) THEN
        RETURN NEW;  -- an occurrence of a canonical that already has one: a link
    END IF;
    SELECT count(*) INTO taken
    FROM case_law_principles p
    WHERE p.case_law_id = NEW.case_law_id
      AND p.review_status <> 'rejected'
      AND p.created_at = now()  -- written by this transaction
      AND p.id = (SELECT min(q.id) FROM case_law_principles q WHERE q.canonical_id = p.canonical_id);
    IF taken >= cap THEN
        RAISE EXCEPTION 'principle cap: ruling % already has % new principles from this extraction (the cap is %)',
            NEW.case_law_id, taken, cap
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER case_law_principles_cap BEFORE INSERT ON case_law_principles
    FOR EACH ROW EXECUTE FUNCTION principle_cap();

-- Pinned like every function of the schema (pin_search_paths, 0027, is itself pinned, so its
-- current_schema() is no longer this schema: pin this one here).
DO $pin$
BEGIN
    EXECUTE format('ALTER FUNCTION principle_cap() SET search_path = pg_catalog, %I, pg_temp',
                   current_schema());
END $pin$;

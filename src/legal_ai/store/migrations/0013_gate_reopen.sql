-- 0013_gate_reopen: a decided lesson goes back to `proposed` only by the chair (her undo).
-- Before, the gate checked decisions only, so any role that may write review_status (the agent's
-- path, for panel verdicts) could reopen a lesson the chair had rejected, and a panel could then
-- approve it. A reopen is now the chair's alone, like a veto; it is audited like every change.

CREATE OR REPLACE FUNCTION lesson_reopen_gate() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.review_status = 'proposed' AND OLD.review_status <> 'proposed'
       AND (NEW.reviewed_by IS DISTINCT FROM 'chair' OR acting_as_chair() IS FALSE) THEN
        RAISE EXCEPTION 'only the chair reopens a decided lesson (% -> proposed)',
            OLD.review_status USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER decision_lessons_reopen BEFORE UPDATE OF review_status ON decision_lessons
    FOR EACH ROW EXECUTE FUNCTION lesson_reopen_gate();

CREATE OR REPLACE FUNCTION principle_reopen_gate() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.review_status = 'proposed' AND OLD.review_status <> 'proposed'
       AND (NEW.reviewed_by IS DISTINCT FROM 'chair' OR acting_as_chair() IS FALSE) THEN
        RAISE EXCEPTION 'only the chair reopens a decided principle (% -> proposed)',
            OLD.review_status USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER case_law_principles_reopen BEFORE UPDATE OF review_status ON case_law_principles
    FOR EACH ROW EXECUTE FUNCTION principle_reopen_gate();

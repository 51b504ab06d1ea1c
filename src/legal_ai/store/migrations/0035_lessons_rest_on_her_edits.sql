-- 0035_lessons_rest_on_her_edits: the style panel sees a lesson only when the system verified
-- that its evidence rests on her edits (issue 31, item 5).
--
-- * `decision_lessons.evidence_verified`: set by the worker's distillation after it found the
--   evidence verbatim in the stored pair, saw that it shows a change of hers (words she wrote,
--   or words of ours she removed), that the lesson copies none of our words she removed, and
--   that it prescribes no outcome and no party's position (learning/lesson_evidence.py).
--   Forced false when any other role writes a lesson (an agent's login, the chair's, a
--   function run as its owner), and frozen once written: nobody turns it on afterwards.
-- * A panel decision on a lesson without it is refused (after the older gate has said what it
--   refuses first): such a lesson is the chair's.

ALTER TABLE decision_lessons ADD COLUMN evidence_verified boolean NOT NULL DEFAULT false;

CREATE FUNCTION lesson_evidence_gate() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NOT acting_as_worker() THEN
            NEW.evidence_verified := false;
        END IF;
        RETURN NEW;
    END IF;
    IF NEW.evidence_verified IS DISTINCT FROM OLD.evidence_verified THEN
        RAISE EXCEPTION 'lesson %: whether its evidence rests on her edits is the distiller''s '
            'record, written once', OLD.id USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.reviewed_by = 'panel' AND NEW.review_status IS DISTINCT FROM OLD.review_status
       AND NOT OLD.evidence_verified THEN
        RAISE EXCEPTION 'lesson %: the panel decides only a lesson whose evidence the system '
            'verified on her edits; this one waits for the chair', OLD.id
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
-- BEFORE triggers run in name order: this one after decision_lessons_gate.
CREATE TRIGGER decision_lessons_her_edits BEFORE INSERT OR UPDATE ON decision_lessons
    FOR EACH ROW EXECUTE FUNCTION lesson_evidence_gate();

SELECT pin_search_paths();

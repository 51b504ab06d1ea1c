-- 0042_trend_n_and_feedback_lessons: the held-out trend's N as the specification has it (issue 34
-- item 6; 07 §0.7), and which of the chair's feedback items the weekly job has proposed as a
-- lesson (item 7; 07 §1.2).
--
-- The trend's N, beside today's `lesson_pool_size` (the approved lessons at that moment):
-- * style_distance_history.methodology_size: the discussion rules, the folded lessons and the
--   transition phrases of the `universal` methodology profile when the row was written (what
--   `promote` folds in and her methodology edits change). A folded lesson is a rule promote
--   added to the methodology, so it is counted with the discussion rules; the three parts and
--   the profile's version are kept in the row's metrics (`metrics.methodology_size`).
-- * A BEFORE INSERT trigger sets both from the profile as it stands in the writing
--   transaction: no writer supplies or overrides them (the history stays append-only).
-- * The rows already there get the count of the universal version saved last before they were
--   captured (methodology_profile_versions); NULL when no version is that old. Only the new
--   column is filled: what they held (their metrics too) stays as it was written.

ALTER TABLE style_distance_history ADD COLUMN methodology_size integer
    CHECK (methodology_size >= 0);

CREATE FUNCTION style_history_methodology_size() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    profile jsonb;
    saved integer;
    rules integer;
    folded integer;
    phrases integer;
BEGIN
    SELECT m.profile, m.version INTO profile, saved
    FROM methodology_profiles m WHERE m.appeal_type = 'universal';
    IF profile IS NULL THEN
        NEW.methodology_size := NULL;
        RETURN NEW;
    END IF;
    rules := CASE WHEN jsonb_typeof(profile -> 'discussion_rules') = 'array'
                  THEN jsonb_array_length(profile -> 'discussion_rules') ELSE 0 END;
    folded := CASE WHEN jsonb_typeof(profile -> 'lessons') = 'array'
                   THEN jsonb_array_length(profile -> 'lessons') ELSE 0 END;
    phrases := CASE WHEN jsonb_typeof(profile -> 'transition_phrases') = 'array'
                    THEN jsonb_array_length(profile -> 'transition_phrases') ELSE 0 END;
    NEW.methodology_size := rules + folded + phrases;
    NEW.metrics := coalesce(NEW.metrics, '{}'::jsonb) || jsonb_build_object(
        'methodology_size', jsonb_build_object(
            'version', saved, 'discussion_rules', rules, 'folded_lessons', folded,
            'transition_phrases', phrases));
    RETURN NEW;
END $$;
CREATE TRIGGER style_distance_history_methodology_size BEFORE INSERT ON style_distance_history
    FOR EACH ROW EXECUTE FUNCTION style_history_methodology_size();

-- The rows already there, from the universal version in force when each was captured. The
-- history is append-only for every role; the migration (its owner) fills the new column once.
ALTER TABLE style_distance_history DISABLE TRIGGER style_distance_history_append_only;
WITH counted AS (
    SELECT h.id,
           CASE WHEN jsonb_typeof(v.profile -> 'discussion_rules') = 'array'
                THEN jsonb_array_length(v.profile -> 'discussion_rules') ELSE 0 END AS rules,
           CASE WHEN jsonb_typeof(v.profile -> 'lessons') = 'array'
                THEN jsonb_array_length(v.profile -> 'lessons') ELSE 0 END AS folded,
           CASE WHEN jsonb_typeof(v.profile -> 'transition_phrases') = 'array'
                THEN jsonb_array_length(v.profile -> 'transition_phrases') ELSE 0 END AS phrases
    FROM style_distance_history h
    CROSS JOIN LATERAL (
        SELECT p.profile FROM methodology_profile_versions p
        WHERE p.appeal_type = 'universal' AND p.created_at <= h.captured_at
        ORDER BY p.version DESC LIMIT 1) v
)
UPDATE style_distance_history h SET methodology_size = c.rules + c.folded + c.phrases
FROM counted c WHERE c.id = h.id;
ALTER TABLE style_distance_history ENABLE TRIGGER style_distance_history_append_only;


-- ---------------------------------------------------------------------------------------------
-- The weekly job's proposals from her feedback (ops/tasks.weekly_feedback_analysis,
-- learning/feedback_lessons.py). One row per feedback item: the lesson proposed from it (one
-- lesson may rest on several items that recur). The primary key is the job's idempotency: an
-- item is proposed once, whatever reruns. Written by the system (the worker's role, or the
-- login's own) only: no request role — an agent, its own login, the chair's role — may mark her
-- feedback as proposed (that would keep it from ever reaching her); `proposed_by` and
-- `proposed_at` are forced from the session. No role updates or deletes a row.
CREATE TABLE feedback_lessons (
    feedback_id bigint PRIMARY KEY REFERENCES chair_feedback (id),
    lesson_id   bigint NOT NULL REFERENCES decision_lessons (id),
    proposed_by text NOT NULL DEFAULT current_user,
    proposed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX feedback_lessons_lesson_idx ON feedback_lessons (lesson_id);

CREATE FUNCTION feedback_lesson_gate() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF acting_as_agent() OR acting_as_chair() THEN
        RAISE EXCEPTION 'a lesson proposed from the chair''s feedback is the weekly job''s, run '
            'by the system; not % may record one', current_user
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    NEW.proposed_by := current_user;
    NEW.proposed_at := now();
    RETURN NEW;
END $$;
CREATE TRIGGER feedback_lessons_gate BEFORE INSERT ON feedback_lessons
    FOR EACH ROW EXECUTE FUNCTION feedback_lesson_gate();

-- The allowlist as it stands (0033's and the later migrations', renamed under
-- apply_role_grants_…, owner-only), plus: the worker inserts, every role reads.
ALTER FUNCTION role_write_grants() RENAME TO apply_role_grants_writes_before_0042;
ALTER FUNCTION role_read_tables() RENAME TO apply_role_grants_reads_before_0042;

CREATE FUNCTION role_write_grants()
RETURNS TABLE (grantee text, table_name text, privilege text, columns text[])
LANGUAGE sql IMMUTABLE AS $$
    SELECT * FROM apply_role_grants_writes_before_0042()
    UNION ALL
    SELECT 'legal_ai_worker', 'feedback_lessons', 'INSERT', NULL::text[]
$$;

CREATE FUNCTION role_read_tables() RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
    SELECT apply_role_grants_reads_before_0042() || ARRAY['feedback_lessons']
$$;

DO $pin$
DECLARE
    f text;
BEGIN
    FOREACH f IN ARRAY ARRAY['feedback_lesson_gate()', 'role_write_grants()', 'role_read_tables()']
    LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = pg_catalog, %I, pg_temp', f,
                       current_schema());
    END LOOP;
END $pin$;
SELECT pin_search_paths();
SELECT apply_role_grants();

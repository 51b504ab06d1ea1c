-- 0015_principles_panel: principles extracted by a three-model panel (issue 13, items 1-2).
--
-- * case_law_principles gains the panel's record: `votes` (how many of the three models proposed
--   the principle), `score` (the mean of the voters' scores), `models` (which), `job_id`, and
--   `canonical_id` (the canonical principle this row is an occurrence of).
-- * canonical_principles: one row per principle of one corpus; its occurrences are the principles
--   that point at it. Isolation: a canonical belongs to one source_kind and the composite foreign
--   key (canonical_id, source_kind) lets a principle point only at a canonical of its own corpus.
--   (The synthesis of a canonical statement is not built yet: status stays pending_synthesis.)
-- * principle_gate is replaced: besides the chair, the panel decides, and only by the exact rule,
--   checked here against the votes and score recorded on the row:
--     votes = 3                  -> approved
--     votes = 2, score >= 0.85   -> approved
--     votes = 2, score <  0.85   -> stays proposed (pending the chair's review)
--     votes <= 1                 -> rejected
--   0.85 is the database's constant; it matches the default of HALACHA_PANEL_APPROVE_SCORE
--   (legal_ai.config). Everything else of 0010's gate holds: only the chair's role decides as the
--   chair, and a decided principle's rule, quote and source are frozen.

CREATE TABLE canonical_principles (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    source_kind text NOT NULL CHECK (source_kind IN ('external_upload', 'internal_committee')),
    rule_text   text NOT NULL CHECK (btrim(rule_text) <> ''),
    status      text NOT NULL DEFAULT 'pending_synthesis'
                CHECK (status IN ('pending_synthesis', 'pending_review', 'approved', 'rejected')),
    created_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (id, source_kind)
);

ALTER TABLE case_law_principles
    ADD COLUMN votes integer CHECK (votes BETWEEN 0 AND 3),
    ADD COLUMN score double precision CHECK (score >= 0 AND score <= 1),
    ADD COLUMN models text,
    ADD COLUMN canonical_id bigint,
    ADD COLUMN job_id bigint;
ALTER TABLE case_law_principles
    ADD CONSTRAINT case_law_principles_canonical_fk FOREIGN KEY (canonical_id, source_kind)
    REFERENCES canonical_principles (id, source_kind);
CREATE INDEX case_law_principles_canonical_idx ON case_law_principles (canonical_id);

CREATE OR REPLACE FUNCTION principle_panel_outcome(votes integer, score double precision)
RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE
        WHEN votes IS NULL THEN NULL
        WHEN votes >= 3 THEN 'approved'
        WHEN votes = 2 AND score >= 0.85 THEN 'approved'  -- = HALACHA_PANEL_APPROVE_SCORE default
        WHEN votes = 2 THEN 'proposed'
        ELSE 'rejected'
    END
$$;

CREATE OR REPLACE FUNCTION principle_gate() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    before text := CASE WHEN TG_OP = 'UPDATE' THEN OLD.review_status END;
    chair boolean := acting_as_chair();
    outcome text;
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.review_status <> 'proposed'
       AND (NEW.rule_text, NEW.supporting_quote, NEW.case_law_id)
           IS DISTINCT FROM (OLD.rule_text, OLD.supporting_quote, OLD.case_law_id) THEN
        RAISE EXCEPTION 'principle % is %: its rule, quote and source are frozen',
            OLD.id, OLD.review_status USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.reviewed_by IS NOT DISTINCT FROM 'panel'
       AND (TG_OP = 'INSERT' OR NEW.review_status IS DISTINCT FROM OLD.review_status
            OR (NEW.votes, NEW.score) IS DISTINCT FROM (OLD.votes, OLD.score)) THEN
        outcome := principle_panel_outcome(NEW.votes, NEW.score);
        IF outcome IS NULL OR (NEW.votes = 2 AND NEW.score IS NULL) THEN
            RAISE EXCEPTION 'a panel decision records its votes and score' USING ERRCODE = 'check_violation';
        END IF;
        IF NEW.review_status IS DISTINCT FROM outcome THEN
            RAISE EXCEPTION 'the panel''s rule gives % for % votes and score %, not %', outcome,
                NEW.votes, NEW.score, NEW.review_status USING ERRCODE = 'check_violation';
        END IF;
        IF TG_OP = 'UPDATE' AND before <> 'proposed' THEN
            RAISE EXCEPTION 'principle % is %: the panel does not decide it again', OLD.id, before
                USING ERRCODE = 'check_violation';
        END IF;
        NEW.reviewed_at := CASE WHEN NEW.review_status = 'proposed' THEN NULL ELSE now() END;
        RETURN NEW;
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.review_status IS NOT DISTINCT FROM OLD.review_status THEN
        RETURN NEW;
    END IF;
    IF NEW.review_status <> 'proposed' THEN
        IF NEW.reviewed_by IS DISTINCT FROM 'chair' OR chair IS FALSE THEN
            RAISE EXCEPTION 'a principle is substance: only the chair approves, rejects or vetoes '
                'it (not %, running as %)', coalesce(NEW.reviewed_by, 'an unnamed writer'),
                current_user USING ERRCODE = 'check_violation';
        END IF;
        IF NEW.review_status = 'vetoed' AND before IS DISTINCT FROM 'approved' THEN
            RAISE EXCEPTION 'only an approved principle is vetoed' USING ERRCODE = 'check_violation';
        END IF;
    END IF;
    NEW.reviewed_at := CASE WHEN NEW.review_status = 'proposed' THEN NULL ELSE now() END;
    RETURN NEW;
END $$;

SELECT apply_role_grants();

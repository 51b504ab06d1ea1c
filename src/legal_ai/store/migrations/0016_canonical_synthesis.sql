-- 0016_canonical_synthesis: the grounded synthesis of a canonical principle's statement (issue 13,
-- item 3; DESIGN INV-LRN6).
--
-- * canonical_principles gains `canonical_statement` (the synthesized wording; NULL: the source
--   wording, rule_text, stands), `grounded` (whether the stored statement passed the grounding
--   check; false: the synthesizer abstained), `embedding` / `embedder` (the statement's vector,
--   written in the same transaction as the text) and `updated_at`.
-- * synthesis never approves: a canonical principle is approved or rejected only by the chair's
--   role (the synthesizer moves pending_synthesis -> pending_review, nothing else).
-- * synthesis_attempts: every attempt (accepted | kept_source | abstained | drift_rejected, the
--   cosine with the source wording, the reason), append-only like model_calls (0012).

ALTER TABLE canonical_principles
    ADD COLUMN canonical_statement text CHECK (btrim(canonical_statement) <> ''),
    ADD COLUMN grounded boolean,
    ADD COLUMN embedding vector,
    ADD COLUMN embedder text,
    ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();

CREATE OR REPLACE FUNCTION canonical_gate() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.status IN ('approved', 'rejected')
       AND (TG_OP = 'INSERT' OR NEW.status IS DISTINCT FROM OLD.status)
       AND acting_as_chair() IS NOT TRUE THEN
        RAISE EXCEPTION 'a canonical principle is substance: only the chair approves or rejects it '
            '(running as %)', current_user USING ERRCODE = 'check_violation';
    END IF;
    IF TG_OP = 'UPDATE' THEN
        NEW.updated_at := now();
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER canonical_principles_gate BEFORE INSERT OR UPDATE ON canonical_principles
    FOR EACH ROW EXECUTE FUNCTION canonical_gate();

CREATE TABLE synthesis_attempts (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    canonical_id bigint NOT NULL REFERENCES canonical_principles (id),
    at           timestamptz NOT NULL DEFAULT now(),
    model        text NOT NULL,
    outcome      text NOT NULL
                 CHECK (outcome IN ('accepted', 'kept_source', 'abstained', 'drift_rejected')),
    cosine       double precision,
    reason       text,
    statement    text
);
CREATE INDEX synthesis_attempts_canonical_idx ON synthesis_attempts (canonical_id, at);

CREATE TRIGGER synthesis_attempts_append_only BEFORE UPDATE OR DELETE ON synthesis_attempts
    FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER synthesis_attempts_no_truncate BEFORE TRUNCATE ON synthesis_attempts
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate();

SELECT apply_role_grants();

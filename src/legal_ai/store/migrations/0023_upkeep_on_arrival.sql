-- 0023_upkeep_on_arrival: upkeep on arrival (issue 15, item 3; learning/arrival.py and
-- learning/enrichment.py).
--
-- * digests.points_to_key: the key the ruling a digest points at is matched by (the number/year
--   of its case number, as `normalize_case_number` spells it and the citation graph links a
--   ruling: learning/finals.link_library). Written by the ingest of the digest (and backfilled by
--   arrival.resolve_all); digests.case_law_id is set in the same transaction when that ruling is
--   in the library, and by the ingest of the ruling when it arrives later.
-- * jobs.kind gains 'enrichment': ingesting an internal decision queues one job per (item, text);
--   `legal-ai worker` and `legal-ai enrich run` drain it with the learning queue's leases,
--   retries and waiting for configuration (LEGAL_AI_ENRICHER). The kinds already allowed are
--   read from the constraint in force and kept, so another migration's kind is never dropped.
-- * case_law_enrichments: a model's headnote, summary (sentences, each resting on a verbatim
--   quote of the decision) and tags for an internal decision, proposed for the chair's review.
--   Nothing is written into case_law until she approves (the service then writes the fields);
--   only the chair's role approves or rejects (where the roles do not exist, the row's own claim
--   decides, as for voice documents, 0020); a proposal's text is frozen; at most one proposal
--   pending per item. Every move is audited in learning_audit (action 'enrichment').

ALTER TABLE digests ADD COLUMN points_to_key text;
CREATE INDEX digests_points_to_key_idx ON digests (points_to_key) WHERE case_law_id IS NULL;

DO $kinds$
DECLARE
    kinds text[];
BEGIN
    SELECT array_agg(DISTINCT m[1] ORDER BY m[1]) INTO kinds
    FROM pg_constraint c, regexp_matches(pg_get_constraintdef(c.oid), '''([^'']+)''', 'g') AS m
    WHERE c.conrelid = 'jobs'::regclass AND c.conname = 'jobs_kind_check';
    kinds := coalesce(kinds, ARRAY['learning', 'principles']);
    IF NOT 'enrichment' = ANY (kinds) THEN
        kinds := array_append(kinds, 'enrichment'::text);
    END IF;
    ALTER TABLE jobs DROP CONSTRAINT IF EXISTS jobs_kind_check;
    EXECUTE format('ALTER TABLE jobs ADD CONSTRAINT jobs_kind_check CHECK (kind = ANY (%L::text[]))',
                   kinds);
END $kinds$;

CREATE TABLE case_law_enrichments (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    case_law_id   bigint NOT NULL REFERENCES case_law (id) ON DELETE CASCADE,
    doc_id        text NOT NULL,
    case_number   text,
    content_hash  text NOT NULL,      -- the decision's text the proposal was written from
    status        text NOT NULL DEFAULT 'pending_review'
                  CHECK (status IN ('pending_review', 'approved', 'rejected', 'superseded')),
    headnote      text NOT NULL CHECK (btrim(headnote) <> ''),
    summary       text NOT NULL CHECK (btrim(summary) <> ''),
    sentences     jsonb NOT NULL,     -- [{text, quote, char_start, char_end}]: offsets in content
    tags          text[] NOT NULL DEFAULT '{}',
    model         text NOT NULL,
    job_id        bigint,             -- the job whose model wrote it (model_calls.job_id)
    written_by    text NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    reviewed_by   text,
    reviewed_at   timestamptz,
    review_reason text,
    previous      jsonb,              -- the item's headnote, summary and tags before approval
    updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX case_law_enrichments_pending_idx ON case_law_enrichments (case_law_id)
    WHERE status = 'pending_review';
CREATE INDEX case_law_enrichments_item_idx ON case_law_enrichments (case_law_id, id);
CREATE INDEX case_law_enrichments_status_idx ON case_law_enrichments (status, id);

CREATE FUNCTION enrichment_gate() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    decider boolean;
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.status <> 'pending_review' THEN
            RAISE EXCEPTION 'an enrichment starts pending the chair''s review'
                USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF (NEW.case_law_id, NEW.doc_id, NEW.case_number, NEW.content_hash, NEW.headnote, NEW.summary,
        NEW.sentences, NEW.tags, NEW.model, NEW.job_id, NEW.written_by, NEW.created_at)
       IS DISTINCT FROM
       (OLD.case_law_id, OLD.doc_id, OLD.case_number, OLD.content_hash, OLD.headnote, OLD.summary,
        OLD.sentences, OLD.tags, OLD.model, OLD.job_id, OLD.written_by, OLD.created_at) THEN
        RAISE EXCEPTION 'enrichment %: a proposal is frozen (the chair approves or rejects it)',
            OLD.id USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.status IS DISTINCT FROM OLD.status THEN
        IF OLD.status <> 'pending_review' THEN
            RAISE EXCEPTION 'enrichment %: % -> % is not a move', OLD.id, OLD.status, NEW.status
                USING ERRCODE = 'check_violation';
        END IF;
        IF NEW.status IN ('approved', 'rejected') THEN
            decider := coalesce(acting_as_chair(), NEW.reviewed_by IS NOT DISTINCT FROM 'chair');
            IF NOT decider THEN
                RAISE EXCEPTION 'an enrichment reaches the library only by the chair: only she '
                    'approves or rejects it (running as %)', current_user
                    USING ERRCODE = 'check_violation';
            END IF;
            NEW.reviewed_at := now();
        END IF;
    ELSIF (NEW.reviewed_by, NEW.review_reason, NEW.previous)
          IS DISTINCT FROM (OLD.reviewed_by, OLD.review_reason, OLD.previous) THEN
        RAISE EXCEPTION 'enrichment %: its review is recorded once, with its decision', OLD.id
            USING ERRCODE = 'check_violation';
    END IF;
    NEW.updated_at := now();
    RETURN NEW;
END $$;

CREATE TRIGGER case_law_enrichments_gate BEFORE INSERT OR UPDATE ON case_law_enrichments
    FOR EACH ROW EXECUTE FUNCTION enrichment_gate();

CREATE FUNCTION enrichment_record() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' OR NEW.status IS DISTINCT FROM OLD.status THEN
        INSERT INTO learning_audit (actor, action, case_number, from_status, to_status, reason,
                                    details)
        VALUES (coalesce(CASE WHEN NEW.status IN ('approved', 'rejected') THEN NEW.reviewed_by
                              ELSE NEW.written_by END, current_user),
                'enrichment', NEW.case_number,
                CASE WHEN TG_OP = 'UPDATE' THEN OLD.status END, NEW.status,
                CASE WHEN NEW.status IN ('approved', 'rejected') THEN NEW.review_reason END,
                jsonb_build_object('enrichment_id', NEW.id, 'case_law_id', NEW.case_law_id,
                                   'doc_id', NEW.doc_id, 'model', NEW.model));
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER case_law_enrichments_record AFTER INSERT OR UPDATE ON case_law_enrichments
    FOR EACH ROW EXECUTE FUNCTION enrichment_record();

SELECT apply_role_grants();

-- 0020_voice_documents: deep-read voice documents, the writer's channel C (issue 14, item 4;
-- knowledge/voice.py).
--
-- * The chair marks a case whose final is exemplary: a row `queued` (marked_by 'chair').
-- * A model (LEGAL_AI_VOICE_WRITER) writes the worked document of that final, block by block,
--   each claim with a verbatim span of the final and its offsets; the service checks every span
--   and refuses a document whose claims do not point at the final. The write is the single move
--   queued -> pending_review; a row stays queued while no model is configured.
-- * Only the chair's role approves or rejects it (pending_review -> approved | rejected), takes
--   an approved one back (approved -> rejected) or drops a case from the queue
--   (queued -> rejected); only approved documents reach the writer (the brief). Where the roles
--   do not exist (acting_as_chair() is NULL), the row's own claim decides, as for canonical
--   principles (0017).
-- * A written document is frozen: its text, claims and provenance never change afterwards. A
--   row is never deleted. At most one open row (queued, pending_review or approved) per case.
-- * Every mark, write and decision is audited in learning_audit (action 'voice_document',
--   details.voice_document_id).

CREATE TABLE voice_documents (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    case_number       text NOT NULL REFERENCES cases (case_number) ON UPDATE CASCADE,
    status            text NOT NULL DEFAULT 'queued'
                      CHECK (status IN ('queued', 'pending_review', 'approved', 'rejected')),
    marked_by         text NOT NULL,
    marked_at         timestamptz NOT NULL DEFAULT now(),
    note              text CHECK (btrim(note) <> ''),
    -- the final it was written from (the style corpus's document, its text's hash)
    style_document_id bigint,
    doc_id            text,
    final_hash        text,
    document          jsonb,
    claims            integer CHECK (claims >= 0),
    dropped_claims    integer NOT NULL DEFAULT 0 CHECK (dropped_claims >= 0),
    substance_claims  integer NOT NULL DEFAULT 0 CHECK (substance_claims >= 0),
    model             text,
    written_by        text,
    written_at        timestamptz,
    refusals          integer NOT NULL DEFAULT 0 CHECK (refusals >= 0),
    last_refusal      text,
    reviewed_by       text,
    reviewed_at       timestamptz,
    review_reason     text,
    updated_at        timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT voice_written_has_document CHECK (
        status = 'queued' OR (document IS NOT NULL AND claims IS NOT NULL
                              AND final_hash IS NOT NULL))
);
CREATE UNIQUE INDEX voice_documents_open_idx ON voice_documents (case_number)
    WHERE status IN ('queued', 'pending_review', 'approved');
CREATE INDEX voice_documents_status_idx ON voice_documents (status, id);

CREATE FUNCTION voice_document_gate() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    chair boolean := acting_as_chair();
    decider boolean;
    written boolean;
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'voice document % is never deleted: the chair rejects it', OLD.id
            USING ERRCODE = 'check_violation';
    END IF;
    IF TG_OP = 'INSERT' THEN
        IF NOT coalesce(chair, NEW.marked_by IS NOT DISTINCT FROM 'chair') THEN
            RAISE EXCEPTION 'only the chair marks a case as exemplary (running as %)', current_user
                USING ERRCODE = 'check_violation';
        END IF;
        IF NEW.status <> 'queued' THEN
            RAISE EXCEPTION 'a voice document starts queued' USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF (NEW.case_number, NEW.marked_by, NEW.marked_at, NEW.note)
       IS DISTINCT FROM (OLD.case_number, OLD.marked_by, OLD.marked_at, OLD.note) THEN
        RAISE EXCEPTION 'voice document %: the mark is frozen', OLD.id
            USING ERRCODE = 'check_violation';
    END IF;
    written := OLD.status = 'queued' AND NEW.status = 'pending_review';
    IF OLD.status <> 'queued' AND NOT written
       AND (NEW.document, NEW.claims, NEW.dropped_claims, NEW.substance_claims, NEW.model,
            NEW.written_by, NEW.written_at, NEW.final_hash, NEW.style_document_id, NEW.doc_id)
           IS DISTINCT FROM
           (OLD.document, OLD.claims, OLD.dropped_claims, OLD.substance_claims, OLD.model,
            OLD.written_by, OLD.written_at, OLD.final_hash, OLD.style_document_id, OLD.doc_id) THEN
        RAISE EXCEPTION 'voice document % is written: its text and provenance are frozen', OLD.id
            USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.status IS DISTINCT FROM OLD.status THEN
        IF NOT (written
                OR (OLD.status = 'pending_review' AND NEW.status IN ('approved', 'rejected'))
                OR (OLD.status IN ('queued', 'approved') AND NEW.status = 'rejected')) THEN
            RAISE EXCEPTION 'voice document %: % -> % is not a move', OLD.id, OLD.status,
                NEW.status USING ERRCODE = 'check_violation';
        END IF;
        IF NEW.status IN ('approved', 'rejected') THEN
            decider := coalesce(chair, NEW.reviewed_by IS NOT DISTINCT FROM 'chair');
            IF NOT decider THEN
                RAISE EXCEPTION 'a voice document reaches the writer only by the chair: only she '
                    'approves or rejects it (running as %)', current_user
                    USING ERRCODE = 'check_violation';
            END IF;
            NEW.reviewed_at := now();
        END IF;
    ELSIF (NEW.reviewed_by, NEW.review_reason) IS DISTINCT FROM (OLD.reviewed_by, OLD.review_reason)
          AND NOT coalesce(chair, NEW.reviewed_by IS NOT DISTINCT FROM 'chair') THEN
        RAISE EXCEPTION 'voice document %: only the chair records a review', OLD.id
            USING ERRCODE = 'check_violation';
    END IF;
    NEW.updated_at := now();
    RETURN NEW;
END $$;

CREATE TRIGGER voice_documents_gate BEFORE INSERT OR UPDATE OR DELETE ON voice_documents
    FOR EACH ROW EXECUTE FUNCTION voice_document_gate();

CREATE FUNCTION voice_document_record() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO learning_audit (actor, action, case_number, to_status, reason, details)
        VALUES (NEW.marked_by, 'voice_document', NEW.case_number, NEW.status, NEW.note,
                jsonb_build_object('voice_document_id', NEW.id, 'move', 'mark'));
    ELSIF NEW.status IS DISTINCT FROM OLD.status THEN
        INSERT INTO learning_audit (actor, action, case_number, from_status, to_status, reason,
                                    details)
        VALUES (coalesce(CASE WHEN NEW.status IN ('approved', 'rejected') THEN NEW.reviewed_by
                              ELSE NEW.written_by END, current_user),
                'voice_document', NEW.case_number, OLD.status, NEW.status,
                CASE WHEN NEW.status IN ('approved', 'rejected') THEN NEW.review_reason END,
                jsonb_build_object('voice_document_id', NEW.id, 'claims', NEW.claims,
                                   'dropped_claims', NEW.dropped_claims,
                                   'substance_claims', NEW.substance_claims,
                                   'model', NEW.model));
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER voice_documents_record AFTER INSERT OR UPDATE ON voice_documents
    FOR EACH ROW EXECUTE FUNCTION voice_document_record();

SELECT apply_role_grants();

-- 0037_treatments: what became of a ruling, read from the later rulings of the library (issue 33,
-- item 3; learning/treatment.py, text/treatment.py, docs/verification.md "Treatment").
--
-- * `treatments`: one row per later ruling or decision of the library (`by_case_law_id`) and
--   ruling it names (`cited_ref`, the citation's normalized ref; `case_law_id`, the library's
--   item of it when library_links.match finds exactly one, else NULL until it arrives). A row
--   is `attacked` (the later ruling is a petition or appeal against it, `kind` read from its
--   operative words: set_aside, upheld, partly_set_aside, returned, unknown) or `cited` (kind
--   NULL; `sentence`: the sentence around the citation). `read_by` says who read it: `rule`
--   (the rules of text/treatment.py) or `model:NAME`.
-- * Her gate (INV-LRN1: substance is the chair's): `review_status` (unconfirmed, confirmed,
--   rejected) moves only under the chair's role — refused to every other role and login (an
--   agent's, the worker's, the owner's: an actor that is not her is refused) — and only on a
--   row linked to a ruling, without changing the reading in the same statement; each decision
--   writes an audit row (learning_audit, actor `chair`). A reading that changes (the later ruling
--   read again, relinked) goes back to `unconfirmed`, whoever wrote it. On insert the review is
--   forced unconfirmed. An agent (its role or its own login) writes nothing here: not granted,
--   and refused by the gate besides. Who wrote a row is forced from the session (`written_role`).
-- * The grants allowlist of 0033 names the table: read by the three roles, written by the chair's
--   role (a final's arrival, her confirmation) and the worker's (arrivals, the nightly upkeep).

CREATE TABLE treatments (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    by_case_law_id  bigint NOT NULL REFERENCES case_law (id) ON DELETE CASCADE,
    cited_ref       text NOT NULL CHECK (btrim(cited_ref) <> ''),
    cited_number    text,
    cited_text      text NOT NULL,
    case_law_id     bigint REFERENCES case_law (id) ON DELETE SET NULL,
    relation        text NOT NULL CHECK (relation IN ('attacked', 'cited')),
    kind            text CHECK (kind IN ('set_aside', 'upheld', 'partly_set_aside', 'returned',
                                         'unknown')),
    read_by         text NOT NULL CHECK (read_by = 'rule' OR read_by ~ '^model:.+'),
    sentence        text NOT NULL,
    char_start      integer NOT NULL CHECK (char_start >= 0),
    char_end        integer NOT NULL CHECK (char_end >= char_start),
    review_status   text NOT NULL DEFAULT 'unconfirmed'
                    CHECK (review_status IN ('unconfirmed', 'confirmed', 'rejected')),
    reviewed_by     text,
    reviewed_at     timestamptz,
    review_reason   text,
    written_role    text NOT NULL DEFAULT current_user,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (by_case_law_id, cited_ref),
    CHECK ((relation = 'attacked') = (kind IS NOT NULL)),
    CHECK (case_law_id IS DISTINCT FROM by_case_law_id)
);
CREATE INDEX treatments_case_law_idx ON treatments (case_law_id) WHERE case_law_id IS NOT NULL;
CREATE INDEX treatments_cited_number_idx ON treatments (cited_number);
CREATE INDEX treatments_unconfirmed_idx ON treatments (id)
    WHERE relation = 'attacked' AND review_status = 'unconfirmed' AND case_law_id IS NOT NULL;

CREATE FUNCTION treatments_gate() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    reading_changed boolean;
    review_changed boolean;
BEGIN
    IF acting_as_agent() THEN
        RAISE EXCEPTION 'what became of a ruling is read by the system and confirmed by the '
            'chair, not written by an agent (running as %)', current_user
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    NEW.written_role := current_user;
    NEW.updated_at := now();
    IF TG_OP = 'INSERT' THEN
        NEW.created_at := now();
        NEW.review_status := 'unconfirmed';
        NEW.reviewed_by := NULL;
        NEW.reviewed_at := NULL;
        NEW.review_reason := NULL;
        RETURN NEW;
    END IF;
    NEW.created_at := OLD.created_at;
    reading_changed := (NEW.by_case_law_id, NEW.cited_ref, NEW.case_law_id, NEW.relation,
                        NEW.kind, NEW.read_by, NEW.sentence)
        IS DISTINCT FROM (OLD.by_case_law_id, OLD.cited_ref, OLD.case_law_id, OLD.relation,
                          OLD.kind, OLD.read_by, OLD.sentence);
    review_changed := (NEW.review_status, NEW.reviewed_by, NEW.reviewed_at, NEW.review_reason)
        IS DISTINCT FROM (OLD.review_status, OLD.reviewed_by, OLD.reviewed_at, OLD.review_reason);
    IF review_changed THEN
        IF NOT acting_as_chair() THEN
            RAISE EXCEPTION 'treatment %: only the chair confirms or rejects what became of a '
                'ruling (running as %)', OLD.id, current_user
                USING ERRCODE = 'insufficient_privilege';
        END IF;
        IF reading_changed THEN
            RAISE EXCEPTION 'treatment %: a decision confirms the reading she was shown; it '
                'changes nothing else', OLD.id USING ERRCODE = 'check_violation';
        END IF;
        IF OLD.case_law_id IS NULL OR OLD.relation <> 'attacked' THEN
            RAISE EXCEPTION 'treatment %: only a petition or appeal against a ruling of the '
                'library is confirmed', OLD.id USING ERRCODE = 'check_violation';
        END IF;
        NEW.reviewed_by := CASE WHEN NEW.review_status = 'unconfirmed' THEN NULL ELSE 'chair' END;
        NEW.reviewed_at := CASE WHEN NEW.review_status = 'unconfirmed' THEN NULL ELSE now() END;
        INSERT INTO learning_audit (actor, action, case_number, from_status, to_status, reason,
                                    details)
        VALUES ('chair', 'review_treatment',
                (SELECT c.case_number FROM case_law c WHERE c.id = OLD.case_law_id),
                OLD.review_status, NEW.review_status, NEW.review_reason,
                jsonb_build_object('treatment_id', OLD.id, 'case_law_id', OLD.case_law_id,
                                   'by_case_law_id', OLD.by_case_law_id, 'kind', OLD.kind,
                                   'read_by', OLD.read_by));
    ELSIF reading_changed THEN
        -- A new reading waits for her, whoever read it.
        NEW.review_status := 'unconfirmed';
        NEW.reviewed_by := NULL;
        NEW.reviewed_at := NULL;
        NEW.review_reason := NULL;
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER treatments_gate BEFORE INSERT OR UPDATE ON treatments
    FOR EACH ROW EXECUTE FUNCTION treatments_gate();

CREATE FUNCTION treatments_delete_gate() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF acting_as_agent() THEN
        RAISE EXCEPTION 'what became of a ruling is not an agent''s to remove (running as %)',
            current_user USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN OLD;
END $$;
CREATE TRIGGER treatments_delete_gate BEFORE DELETE ON treatments
    FOR EACH ROW EXECUTE FUNCTION treatments_delete_gate();

-- ---------------------------------------------------------------------------------------------
-- The allowlist of 0033 with this table named (read by the three roles; written by the chair's
-- role and the worker's). A later migration that replaces these lists keeps these rows.
CREATE OR REPLACE FUNCTION role_write_grants()
RETURNS TABLE (grantee text, table_name text, privilege text, columns text[])
LANGUAGE sql IMMUTABLE AS $list$
    SELECT * FROM (VALUES
    -- An agent (its role, and its own login): proposals, feedback, one ruling's extraction
    -- queued, its searches, its drafts; the audit rows its gates write (audit_record refuses
    -- a row of its own statement).
    ('legal_ai_agent', 'chair_feedback', 'INSERT', NULL::text[]),
    ('legal_ai_agent', 'decision_lessons', 'INSERT', NULL),
    ('legal_ai_agent', 'drafts', 'INSERT', NULL),
    ('legal_ai_agent', 'jobs', 'INSERT', NULL),
    ('legal_ai_agent', 'learning_audit', 'INSERT', NULL),
    ('legal_ai_agent', 'search_log', 'INSERT', NULL),
    -- The chair (a member of the agent's role): what her decisions write — her finals and their
    -- ingest (items, chunks, page images, versions, the BM25 statistics, exemplars, templates,
    -- citations), her reviews of lessons, principles, canonical statements, enrichments and
    -- voice documents, the methodology, her marks and schedules.
    ('legal_ai_chair', 'authorities', 'INSERT', NULL),
    ('legal_ai_chair', 'authorities', 'UPDATE', NULL),
    ('legal_ai_chair', 'block_exemplars', 'INSERT', NULL),
    ('legal_ai_chair', 'block_exemplars', 'UPDATE', NULL),
    ('legal_ai_chair', 'block_exemplars', 'DELETE', NULL),
    ('legal_ai_chair', 'block_templates', 'INSERT', NULL),
    ('legal_ai_chair', 'block_templates', 'DELETE', NULL),
    ('legal_ai_chair', 'canonical_principles', 'INSERT', NULL),
    ('legal_ai_chair', 'canonical_principles', 'UPDATE', NULL),
    ('legal_ai_chair', 'canonical_statement_versions', 'INSERT', NULL),
    ('legal_ai_chair', 'case_law', 'INSERT', NULL),
    ('legal_ai_chair', 'case_law', 'UPDATE', NULL),
    ('legal_ai_chair', 'case_law_chunks', 'INSERT', NULL),
    ('legal_ai_chair', 'case_law_chunks', 'UPDATE', NULL),
    ('legal_ai_chair', 'case_law_chunks', 'DELETE', NULL),
    ('legal_ai_chair', 'case_law_enrichments', 'UPDATE', NULL),
    ('legal_ai_chair', 'case_law_page_images', 'INSERT', NULL),
    ('legal_ai_chair', 'case_law_page_images', 'DELETE', NULL),
    ('legal_ai_chair', 'case_law_principles', 'INSERT', NULL),
    ('legal_ai_chair', 'case_law_principles', 'UPDATE', NULL),
    ('legal_ai_chair', 'case_precedents', 'INSERT', NULL),
    ('legal_ai_chair', 'case_precedents', 'UPDATE', NULL),
    ('legal_ai_chair', 'case_precedents', 'DELETE', NULL),
    ('legal_ai_chair', 'case_status', 'INSERT', NULL),
    ('legal_ai_chair', 'case_status', 'UPDATE', NULL),
    ('legal_ai_chair', 'cases', 'INSERT', NULL),
    ('legal_ai_chair', 'cases', 'UPDATE', NULL),
    ('legal_ai_chair', 'decision_citations', 'INSERT', NULL),
    ('legal_ai_chair', 'decision_citations', 'UPDATE', NULL),
    ('legal_ai_chair', 'decision_citations', 'DELETE', NULL),
    ('legal_ai_chair', 'decision_lessons', 'UPDATE', NULL),
    ('legal_ai_chair', 'document_chunks', 'INSERT', NULL),
    ('legal_ai_chair', 'document_chunks', 'UPDATE', NULL),
    ('legal_ai_chair', 'document_chunks', 'DELETE', NULL),
    ('legal_ai_chair', 'document_page_images', 'INSERT', NULL),
    ('legal_ai_chair', 'document_page_images', 'DELETE', NULL),
    ('legal_ai_chair', 'documents', 'INSERT', NULL),
    ('legal_ai_chair', 'documents', 'UPDATE', NULL),
    ('legal_ai_chair', 'documents', 'DELETE', NULL),
    ('legal_ai_chair', 'draft_final_pairs', 'INSERT', NULL),
    ('legal_ai_chair', 'draft_final_pairs', 'UPDATE', NULL),
    ('legal_ai_chair', 'item_versions', 'INSERT', NULL),
    ('legal_ai_chair', 'jobs', 'UPDATE', NULL),
    ('legal_ai_chair', 'lexicon', 'INSERT', NULL),
    ('legal_ai_chair', 'lexicon', 'UPDATE', NULL),
    ('legal_ai_chair', 'lexicon', 'DELETE', NULL),
    ('legal_ai_chair', 'lexicon_size', 'INSERT', NULL),
    ('legal_ai_chair', 'lexicon_size', 'UPDATE', NULL),
    ('legal_ai_chair', 'library_rekeys', 'UPDATE', NULL),
    ('legal_ai_chair', 'methodology_profile_versions', 'INSERT', NULL),
    ('legal_ai_chair', 'methodology_profiles', 'UPDATE', NULL),
    ('legal_ai_chair', 'missing_precedents', 'INSERT', NULL),
    ('legal_ai_chair', 'missing_precedents', 'UPDATE', NULL),
    ('legal_ai_chair', 'schedules', 'INSERT', NULL),
    ('legal_ai_chair', 'schedules', 'UPDATE', NULL),
    ('legal_ai_chair', 'search_marks', 'INSERT', NULL),
    ('legal_ai_chair', 'search_marks', 'DELETE', NULL),  -- a mark she takes back
    ('legal_ai_chair', 'style_distance_history', 'INSERT', NULL),
    ('legal_ai_chair', 'template_state', 'INSERT', NULL),
    ('legal_ai_chair', 'template_state', 'UPDATE', NULL),
    ('legal_ai_chair', 'treatments', 'INSERT', NULL),  -- 0037: her final's arrival reads them
    ('legal_ai_chair', 'treatments', 'UPDATE', NULL),  -- and her confirmation (treatments_gate)
    ('legal_ai_chair', 'treatments', 'DELETE', NULL),
    ('legal_ai_chair', 'voice_documents', 'INSERT', NULL),
    ('legal_ai_chair', 'voice_documents', 'UPDATE', NULL),
    -- The worker: what the system's stages own (the library's arrivals and upkeep, OCR, the
    -- learning engine, panels, synthesis, voice, enrichment, the scheduler, telemetry pruning).
    -- Not the methodology, not the vocabularies, not the desk, not schema_migrations.
    ('legal_ai_worker', 'authorities', 'INSERT', NULL),
    ('legal_ai_worker', 'authorities', 'UPDATE', NULL),
    ('legal_ai_worker', 'block_exemplars', 'INSERT', NULL),
    ('legal_ai_worker', 'block_exemplars', 'UPDATE', NULL),
    ('legal_ai_worker', 'block_exemplars', 'DELETE', NULL),
    ('legal_ai_worker', 'block_templates', 'INSERT', NULL),
    ('legal_ai_worker', 'block_templates', 'DELETE', NULL),
    ('legal_ai_worker', 'canonical_principles', 'INSERT', NULL),
    ('legal_ai_worker', 'canonical_principles', 'UPDATE', NULL),
    ('legal_ai_worker', 'canonical_statement_versions', 'INSERT', NULL),
    ('legal_ai_worker', 'case_law', 'INSERT', NULL),
    ('legal_ai_worker', 'case_law', 'UPDATE', NULL),
    ('legal_ai_worker', 'case_law_chunks', 'INSERT', NULL),
    ('legal_ai_worker', 'case_law_chunks', 'UPDATE', NULL),
    ('legal_ai_worker', 'case_law_chunks', 'DELETE', NULL),
    ('legal_ai_worker', 'case_law_enrichments', 'INSERT', NULL),
    ('legal_ai_worker', 'case_law_enrichments', 'UPDATE', NULL),
    ('legal_ai_worker', 'case_law_page_images', 'INSERT', NULL),
    ('legal_ai_worker', 'case_law_page_images', 'DELETE', NULL),
    ('legal_ai_worker', 'case_law_principles', 'INSERT', NULL),
    ('legal_ai_worker', 'case_law_principles', 'UPDATE', NULL),
    ('legal_ai_worker', 'case_status', 'INSERT', NULL),
    ('legal_ai_worker', 'case_status', 'UPDATE', NULL),
    ('legal_ai_worker', 'cases', 'INSERT', NULL),
    ('legal_ai_worker', 'cases', 'UPDATE', NULL),
    ('legal_ai_worker', 'copy_fingerprints', 'INSERT', NULL),
    ('legal_ai_worker', 'copy_fingerprints', 'UPDATE', NULL),
    ('legal_ai_worker', 'copy_fingerprints', 'DELETE', NULL),
    ('legal_ai_worker', 'decision_citations', 'INSERT', NULL),
    ('legal_ai_worker', 'decision_citations', 'UPDATE', NULL),
    ('legal_ai_worker', 'decision_citations', 'DELETE', NULL),
    ('legal_ai_worker', 'decision_lessons', 'INSERT', NULL),
    ('legal_ai_worker', 'decision_lessons', 'UPDATE',
        ARRAY['review_status', 'reviewed_by', 'reviewed_at', 'review_reason', 'needs_chair',
              'panel_models', 'corroboration', 'folded_into']),
    ('legal_ai_worker', 'digest_chunks', 'INSERT', NULL),
    ('legal_ai_worker', 'digest_chunks', 'DELETE', NULL),
    ('legal_ai_worker', 'digests', 'INSERT', NULL),
    ('legal_ai_worker', 'digests', 'UPDATE', NULL),
    ('legal_ai_worker', 'document_chunks', 'INSERT', NULL),
    ('legal_ai_worker', 'document_chunks', 'UPDATE', NULL),
    ('legal_ai_worker', 'document_chunks', 'DELETE', NULL),
    ('legal_ai_worker', 'document_page_images', 'INSERT', NULL),
    ('legal_ai_worker', 'document_page_images', 'DELETE', NULL),
    ('legal_ai_worker', 'documents', 'INSERT', NULL),
    ('legal_ai_worker', 'documents', 'UPDATE', NULL),
    ('legal_ai_worker', 'draft_final_pairs', 'UPDATE', NULL),
    ('legal_ai_worker', 'eval_history', 'INSERT', NULL),
    ('legal_ai_worker', 'eval_history', 'UPDATE', NULL),  -- a second run that day replaces it
    ('legal_ai_worker', 'item_versions', 'INSERT', NULL),
    ('legal_ai_worker', 'jobs', 'INSERT', NULL),
    ('legal_ai_worker', 'jobs', 'UPDATE', NULL),
    ('legal_ai_worker', 'jobs', 'DELETE', NULL),
    ('legal_ai_worker', 'learning_audit', 'INSERT', NULL),
    ('legal_ai_worker', 'lexicon', 'INSERT', NULL),
    ('legal_ai_worker', 'lexicon', 'UPDATE', NULL),
    ('legal_ai_worker', 'lexicon', 'DELETE', NULL),
    ('legal_ai_worker', 'lexicon_size', 'INSERT', NULL),
    ('legal_ai_worker', 'lexicon_size', 'UPDATE', NULL),
    ('legal_ai_worker', 'library_rekeys', 'UPDATE', NULL),
    ('legal_ai_worker', 'missing_precedents', 'INSERT', NULL),
    ('legal_ai_worker', 'missing_precedents', 'UPDATE', NULL),
    ('legal_ai_worker', 'model_calls', 'INSERT', NULL),
    ('legal_ai_worker', 'panel_verdicts', 'INSERT', NULL),
    ('legal_ai_worker', 'principle_votes', 'INSERT', NULL),
    ('legal_ai_worker', 'scanned_files', 'INSERT', NULL),
    ('legal_ai_worker', 'scanned_files', 'UPDATE', NULL),
    ('legal_ai_worker', 'schedule_runs', 'INSERT', NULL),
    ('legal_ai_worker', 'schedules', 'INSERT', NULL),
    ('legal_ai_worker', 'schedules', 'UPDATE', NULL),
    ('legal_ai_worker', 'search_log', 'DELETE', NULL),
    ('legal_ai_worker', 'search_marks', 'DELETE', NULL),
    ('legal_ai_worker', 'style_distance_history', 'INSERT', NULL),
    ('legal_ai_worker', 'synthesis_attempts', 'INSERT', NULL),
    ('legal_ai_worker', 'template_state', 'INSERT', NULL),
    ('legal_ai_worker', 'template_state', 'UPDATE', NULL),
    ('legal_ai_worker', 'treatments', 'INSERT', NULL),  -- 0037: the arrivals and upkeep
    ('legal_ai_worker', 'treatments', 'UPDATE', NULL),
    ('legal_ai_worker', 'treatments', 'DELETE', NULL),
    ('legal_ai_worker', 'voice_documents', 'INSERT', NULL),
    ('legal_ai_worker', 'voice_documents', 'UPDATE', NULL)
    ) AS grants (grantee, table_name, privilege, columns)
$list$;

-- What the three roles read: every table of this release but the desk's accounts (the agent's
-- tools read the library, the case files, the learning tables and the telemetry; the MCP server
-- checks schema_migrations on opening). A table a later migration adds is read by no role until
-- that migration names it here (CREATE OR REPLACE of this function).
CREATE OR REPLACE FUNCTION role_read_tables() RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
    SELECT ARRAY['authorities', 'block_exemplars', 'block_templates', 'canonical_principles',
                 'canonical_statement_versions', 'case_law', 'case_law_chunks',
                 'case_law_enrichments', 'case_law_page_images', 'case_law_principles',
                 'case_precedents', 'case_status', 'cases', 'chair_feedback', 'copy_fingerprints',
                 'corpus_requirements', 'decision_blocks', 'decision_citations',
                 'decision_lessons', 'digest_chunks', 'digests', 'document_chunks',
                 'document_page_images', 'documents', 'draft_final_pairs', 'drafts',
                 'embedding_cache', 'embedding_config', 'eval_history', 'item_versions', 'jobs',
                 'learning_audit', 'lesson_categories', 'lexicon', 'lexicon_size',
                 'library_rekeys', 'methodology_profile_versions', 'methodology_profiles',
                 'missing_precedents', 'model_calls', 'panel_verdicts', 'principle_votes',
                 'scanned_files', 'schedule_runs', 'schedules', 'schema_migrations', 'search_log',
                 'search_marks', 'style_distance_history', 'synthesis_attempts', 'template_state',
                 'treatments', 'voice_documents']
$$;

SELECT pin_search_paths();
SELECT apply_role_grants();

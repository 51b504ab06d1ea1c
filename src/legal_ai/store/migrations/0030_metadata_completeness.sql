-- 0030_metadata_completeness: completeness as the specification states it (issue 21, item 6).
--
-- * An internal decision is searchable only with its headnote, summary and tags (INV-RET2's own
--   example): the three join corpus_requirements for ('internal', 'decision').
-- * A searchable item has EVERY chunk's span resolving in its stored text (and page within the
--   page count), not one: item_contract checks them all. A chunk whose text was changed outside
--   ingest (its span no longer reads its text) makes its item unsearchable at once; `legal-ai
--   health` names it (with the hash check of texts and chunks) and `legal-ai reindex` repairs it.
-- * The enricher's grounded proposal is applied at once (07 §0.6): a row of
--   case_law_enrichments with status 'applied', written only by the worker's role (the system's
--   stage, never a request), for the decision's current text, each summary sentence's quote at
--   its offsets in that text; the decision's fields then change under the worker's role only to
--   that row's values, in the same transaction. The chair reverts it ('reverted': the fields
--   before it) or replaces it with her own ('edited'); nobody else does. An answer that is not
--   grounded is stored pending her review with why (`ungrounded`).

INSERT INTO corpus_requirements (corpus, doc_type, field) VALUES
    ('internal', 'decision', 'headnote'),
    ('internal', 'decision', 'summary'),
    ('internal', 'decision', 'tags')
ON CONFLICT DO NOTHING;

-- A required field is present when it is a non-blank value or a non-empty list (0001's read an
-- empty list, '[]', as a value: tags were never missing).
CREATE OR REPLACE FUNCTION item_missing(item jsonb, corpus text) RETURNS text[]
LANGUAGE sql STABLE AS $$
    SELECT coalesce(array_agg(r.field ORDER BY r.field), '{}')
           || CASE WHEN item->>'extraction_issue' IS NULL THEN '{}'::text[]
                   ELSE ARRAY['text: ' || (item->>'extraction_issue')] END
    FROM corpus_requirements r
    WHERE r.corpus = item_missing.corpus
      AND r.doc_type = item->>'doc_type'
      AND NOT coalesce(
          CASE WHEN jsonb_typeof(item->r.field) = 'array'
               THEN jsonb_array_length(item->r.field) > 0
               ELSE nullif(btrim(item->>r.field), '') IS NOT NULL END, false)
      AND NOT coalesce(
          CASE WHEN jsonb_typeof(item->'metadata'->r.field) = 'array'
               THEN jsonb_array_length(item->'metadata'->r.field) > 0
               ELSE nullif(btrim(item->'metadata'->>r.field), '') IS NOT NULL END, false)
$$;

-- BEFORE INSERT/UPDATE on an item table (0001's, with every chunk checked).
CREATE OR REPLACE FUNCTION item_contract() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    row_json jsonb := to_jsonb(NEW);
    corpus_key text := coalesce(
        row_json->>'corpus',
        CASE row_json->>'source_kind' WHEN 'external_upload' THEN 'external'
                                      WHEN 'internal_committee' THEN 'internal' END,
        TG_ARGV[2]);
    has_chunk boolean;
    broken boolean;
BEGIN
    NEW.missing := item_missing(row_json, corpus_key);
    EXECUTE format(
        'SELECT coalesce(bool_or(r.resolves AND r.embedded), false),'
        '       coalesce(bool_or(NOT r.resolves), false)'
        '  FROM (SELECT coalesce(substr($2, c.char_start + 1, c.char_end - c.char_start) = c.text'
        '                        AND ($3::integer[] IS NULL'
        '                             OR c.page BETWEEN 1 AND cardinality($3::integer[])), false)'
        '               AS resolves,'
        '               (c.embedding IS NOT NULL AND c.embedder = active_embedder()'
        '                AND c.embedded_hash = c.text_hash) AS embedded'
        '          FROM %I c WHERE c.%I = $1) r',
        TG_ARGV[0], TG_ARGV[1])
    INTO has_chunk, broken USING NEW.id, NEW.content, NEW.page_starts;
    NEW.searchable := cardinality(NEW.missing) = 0 AND has_chunk AND NOT broken;
    RETURN NEW;
END $$;

-- ---------------------------------------------------------------------------------------------
-- Enrichment proposals: applied at once when grounded, waiting for the chair when not.
ALTER TABLE case_law_enrichments DROP CONSTRAINT case_law_enrichments_status_check;
ALTER TABLE case_law_enrichments ADD CONSTRAINT case_law_enrichments_status_check
    CHECK (status IN ('pending_review', 'approved', 'rejected', 'superseded',
                      'applied', 'reverted', 'edited'));
ALTER TABLE case_law_enrichments ADD COLUMN ungrounded text;  -- why it waits for the chair

-- Whether an 'applied' row rests on the decision's current text, word for word.
CREATE FUNCTION enrichment_grounded(e case_law_enrichments) RETURNS boolean
LANGUAGE sql STABLE AS $$
    SELECT EXISTS (SELECT 1 FROM case_law c
                   WHERE c.id = e.case_law_id AND c.source_kind = 'internal_committee'
                     AND c.content_hash = e.content_hash)
       AND jsonb_typeof(e.sentences) = 'array' AND jsonb_array_length(e.sentences) > 0
       AND NOT EXISTS (
           SELECT 1 FROM jsonb_array_elements(e.sentences) s, case_law c
           WHERE c.id = e.case_law_id
             AND substr(c.content, (s->>'char_start')::integer + 1,
                        (s->>'char_end')::integer - (s->>'char_start')::integer)
                 IS DISTINCT FROM s->>'quote')
$$;

CREATE OR REPLACE FUNCTION enrichment_gate() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.status = 'applied' THEN
            IF NOT acting_as_worker() THEN
                RAISE EXCEPTION 'an enrichment is applied only by the system''s enricher '
                    '(running as %)', current_user USING ERRCODE = 'check_violation';
            END IF;
            IF NEW.ungrounded IS NOT NULL OR NEW.reviewed_by IS NOT NULL
               OR NOT enrichment_grounded(NEW) THEN
                RAISE EXCEPTION 'an enrichment applied at once rests on the decision''s current '
                    'text, every sentence on its quote' USING ERRCODE = 'check_violation';
            END IF;
        ELSIF NEW.status <> 'pending_review' THEN
            RAISE EXCEPTION 'an enrichment starts pending the chair''s review or applied by the '
                'system' USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF (NEW.case_law_id, NEW.doc_id, NEW.case_number, NEW.content_hash, NEW.headnote, NEW.summary,
        NEW.sentences, NEW.tags, NEW.model, NEW.job_id, NEW.written_by, NEW.created_at,
        NEW.ungrounded)
       IS DISTINCT FROM
       (OLD.case_law_id, OLD.doc_id, OLD.case_number, OLD.content_hash, OLD.headnote, OLD.summary,
        OLD.sentences, OLD.tags, OLD.model, OLD.job_id, OLD.written_by, OLD.created_at,
        OLD.ungrounded) THEN
        RAISE EXCEPTION 'enrichment %: a proposal is frozen (the chair approves or rejects it)',
            OLD.id USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.status IS DISTINCT FROM OLD.status THEN
        IF NOT ((OLD.status = 'pending_review'
                 AND NEW.status IN ('approved', 'rejected', 'superseded'))
                OR (OLD.status = 'applied' AND NEW.status IN ('reverted', 'edited'))) THEN
            RAISE EXCEPTION 'enrichment %: % -> % is not a move', OLD.id, OLD.status, NEW.status
                USING ERRCODE = 'check_violation';
        END IF;
        IF NEW.status <> 'superseded' THEN
            IF NOT acting_as_chair() THEN
                RAISE EXCEPTION 'an enrichment reaches the library only by the chair: only she '
                    'approves, rejects, reverts or edits it (running as %)', current_user
                    USING ERRCODE = 'check_violation';
            END IF;
            IF OLD.status = 'applied' AND NEW.previous IS DISTINCT FROM OLD.previous THEN
                RAISE EXCEPTION 'enrichment %: what it replaced is kept as it was', OLD.id
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

CREATE OR REPLACE FUNCTION enrichment_record() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    decided boolean := NEW.status IN ('approved', 'rejected', 'reverted', 'edited');
BEGIN
    IF TG_OP = 'INSERT' OR NEW.status IS DISTINCT FROM OLD.status THEN
        INSERT INTO learning_audit (actor, action, case_number, from_status, to_status, reason,
                                    details)
        VALUES (coalesce(CASE WHEN decided THEN NEW.reviewed_by ELSE NEW.written_by END,
                         current_user),
                'enrichment', NEW.case_number,
                CASE WHEN TG_OP = 'UPDATE' THEN OLD.status END, NEW.status,
                CASE WHEN decided THEN NEW.review_reason ELSE NEW.ungrounded END,
                jsonb_build_object('enrichment_id', NEW.id, 'case_law_id', NEW.case_law_id,
                                   'doc_id', NEW.doc_id, 'model', NEW.model));
    END IF;
    RETURN NULL;
END $$;

-- case_law's enrichment columns (0027's, with the system's applied enrichment): an agent's role
-- never writes them; the worker's only to the values of an enrichment it applied to the
-- decision's current text in this same transaction (each field unchanged or that row's).
CREATE OR REPLACE FUNCTION case_law_enrichment_columns() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    stored record;
BEGIN
    IF TG_OP = 'INSERT' THEN  -- an upsert of a stored ruling (OCR) carries its fields again
        SELECT headnote, summary, tags INTO stored FROM case_law
        WHERE doc_id = NEW.doc_id AND source_kind = NEW.source_kind;
    ELSE
        stored := OLD;
    END IF;
    IF (NULLIF(NEW.headnote, ''), NULLIF(NEW.summary, ''), coalesce(NEW.tags, '{}'))
       IS NOT DISTINCT FROM (NULLIF(stored.headnote, ''), NULLIF(stored.summary, ''),
                             coalesce(stored.tags, '{}')) THEN
        RETURN NEW;
    END IF;
    IF acting_as_agent() OR (acting_as_worker() AND (TG_OP = 'INSERT' OR NOT EXISTS (
        SELECT 1 FROM case_law_enrichments e
        WHERE e.case_law_id = NEW.id AND e.status = 'applied' AND e.created_at = now()
          AND e.content_hash = NEW.content_hash
          AND (NEW.headnote IS NOT DISTINCT FROM stored.headnote OR NEW.headnote = e.headnote)
          AND (NEW.summary IS NOT DISTINCT FROM stored.summary OR NEW.summary = e.summary)
          AND (coalesce(NEW.tags, '{}') = coalesce(stored.tags, '{}') OR NEW.tags = e.tags))))
    THEN
        RAISE EXCEPTION 'a decision''s headnote, summary and tags reach the library only through '
            'the chair, the operator''s ingest or an enrichment the system applied (running as %)',
            current_user USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;

-- Pinned like every function of the schema (see 0028).
DO $pin$
DECLARE
    f text;
BEGIN
    FOREACH f IN ARRAY ARRAY['item_missing(jsonb, text)', 'item_contract()', 'enrichment_grounded(case_law_enrichments)',
                             'enrichment_gate()', 'enrichment_record()',
                             'case_law_enrichment_columns()']
    LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = pg_catalog, %I, pg_temp',
                       f, current_schema());
    END LOOP;
END $pin$;

-- Every item judged again by the rules above (internal decisions without their three fields
-- stop being searchable; the nightly upkeep queues their enrichment).
UPDATE documents SET searchable = searchable;
UPDATE case_law SET searchable = searchable;
UPDATE digests SET searchable = searchable;

SELECT apply_role_grants();

-- 0018_block_exemplars: what the writer reads of the chair's finals, channel B (issue 14 items 1
-- and 2; README "Block exemplars and templates").
--
-- * block_exemplars: every final in the style corpus cut into its 12 blocks and each block into
--   its paragraphs (document_id, block, paragraph ordinal, exact span in the final's text), with
--   the final's case number, appeal type, outcome, practice area and date, its analysis for the
--   lexical leg and its embedding for the dense leg (stale like a chunk: embedded_hash). Written
--   in the final's ingest transaction (knowledge/exemplars.py), replaced when its text changes,
--   deleted with the document (ON DELETE CASCADE). The final's fields are not the writer's to
--   give: a trigger copies them from the document and its case (the case's appeal type and
--   outcome, else the document's metadata), and follows them when the document or the case
--   changes. A paragraph whose span is not its text in the final is refused.
-- * block_templates: the passages that recur nearly verbatim across at least two finals, with
--   their variable slots, support and examples (knowledge/templates.py measures them); a
--   template recurring in one final only is refused by the database too.
-- * template_state: the fingerprint of the paragraphs the templates were measured on (a read
--   whose fingerprint no longer matches measures them again).

CREATE TABLE block_exemplars (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    corpus        text    NOT NULL DEFAULT 'style' CHECK (corpus = 'style'),
    document_id   bigint  NOT NULL,
    block         text    NOT NULL CHECK (block IN ('header', 'opening', 'background', 'subject',
                      'decision_under_appeal', 'appellants_claims', 'respondents_claims',
                      'hearing', 'legal_framework', 'discussion', 'conclusion', 'signature')),
    ordinal       integer NOT NULL CHECK (ordinal >= 0),
    char_start    integer NOT NULL CHECK (char_start >= 0),
    char_end      integer NOT NULL,
    text          text    NOT NULL CHECK (btrim(text) <> ''),
    source_hash   text    NOT NULL,  -- the final's content_hash when it was cut
    case_number   text,
    appeal_type   text,
    outcome       text,
    practice_area text,
    decided_on    date,
    text_hash     text    NOT NULL,
    analyzed      text    NOT NULL,
    analyzer      text    NOT NULL,
    tsv           tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, analyzed)) STORED,
    embedding     vector,
    embedder      text,
    embedded_hash text,
    stale         boolean GENERATED ALWAYS AS (embedded_hash IS DISTINCT FROM text_hash) STORED,
    created_at    timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (document_id, corpus) REFERENCES documents (id, corpus) ON DELETE CASCADE,
    UNIQUE (document_id, block, ordinal),
    CHECK (char_end > char_start)
);
CREATE INDEX block_exemplars_block_idx ON block_exemplars (block, appeal_type, outcome);
CREATE INDEX block_exemplars_case_idx ON block_exemplars (case_number);
CREATE INDEX block_exemplars_tsv_idx ON block_exemplars USING gin (tsv);

-- The final's fields, from its document and case; its span checked against its text.
CREATE FUNCTION block_exemplar_fields() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    f record;
BEGIN
    SELECT d.case_number, d.practice_area, d.decided_on, d.metadata, d.content,
           c.appeal_type, c.outcome, c.practice_area AS case_area
      INTO f
      FROM documents d LEFT JOIN cases c ON c.case_number = d.case_number
     WHERE d.id = NEW.document_id AND d.corpus = 'style';
    IF NOT FOUND THEN
        RAISE EXCEPTION 'document % is not a final in the style corpus', NEW.document_id
            USING ERRCODE = 'foreign_key_violation';
    END IF;
    NEW.case_number := f.case_number;
    NEW.practice_area := coalesce(f.practice_area, f.case_area);
    NEW.decided_on := f.decided_on;
    NEW.appeal_type := coalesce(f.appeal_type, nullif(btrim(f.metadata->>'appeal_type'), ''));
    NEW.outcome := coalesce(f.outcome, nullif(btrim(f.metadata->>'outcome'), ''));
    IF TG_OP = 'INSERT' OR NEW.text IS DISTINCT FROM OLD.text
       OR NEW.char_start IS DISTINCT FROM OLD.char_start
       OR NEW.char_end IS DISTINCT FROM OLD.char_end THEN
        IF substr(f.content, NEW.char_start + 1, NEW.char_end - NEW.char_start)
           IS DISTINCT FROM NEW.text THEN
            RAISE EXCEPTION 'paragraph [%, %) of document % is not that span of the final''s text',
                NEW.char_start, NEW.char_end, NEW.document_id USING ERRCODE = 'check_violation';
        END IF;
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER block_exemplars_fields BEFORE INSERT OR UPDATE ON block_exemplars
    FOR EACH ROW EXECUTE FUNCTION block_exemplar_fields();

-- A final's fields or its case's appeal type / outcome changed: its paragraphs follow (the
-- BEFORE trigger above reads them again).
CREATE FUNCTION block_exemplars_follow_document() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE block_exemplars SET case_number = NULL WHERE document_id = NEW.id;
    RETURN NULL;
END $$;
CREATE TRIGGER documents_block_exemplars
    AFTER UPDATE OF case_number, practice_area, decided_on, metadata ON documents
    FOR EACH ROW WHEN (NEW.corpus = 'style' AND (
        OLD.case_number IS DISTINCT FROM NEW.case_number
        OR OLD.practice_area IS DISTINCT FROM NEW.practice_area
        OR OLD.decided_on IS DISTINCT FROM NEW.decided_on
        OR OLD.metadata IS DISTINCT FROM NEW.metadata))
    EXECUTE FUNCTION block_exemplars_follow_document();

CREATE FUNCTION block_exemplars_follow_case() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE block_exemplars e SET case_number = NULL
      FROM documents d
     WHERE d.id = e.document_id AND d.corpus = 'style' AND d.case_number = NEW.case_number;
    RETURN NULL;
END $$;
CREATE TRIGGER cases_block_exemplars
    AFTER UPDATE OF appeal_type, outcome, practice_area ON cases
    FOR EACH ROW WHEN (OLD.appeal_type IS DISTINCT FROM NEW.appeal_type
        OR OLD.outcome IS DISTINCT FROM NEW.outcome
        OR OLD.practice_area IS DISTINCT FROM NEW.practice_area)
    EXECUTE FUNCTION block_exemplars_follow_case();

CREATE TABLE block_templates (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    block        text    NOT NULL CHECK (block IN ('header', 'opening', 'background', 'subject',
                     'decision_under_appeal', 'appellants_claims', 'respondents_claims',
                     'hearing', 'legal_framework', 'discussion', 'conclusion', 'signature')),
    text         text    NOT NULL CHECK (btrim(text) <> ''),
    slots        text[]  NOT NULL DEFAULT '{}',
    support      integer NOT NULL CHECK (support >= 2),  -- distinct finals; one is no template
    words        integer NOT NULL CHECK (words > 0),
    examples     jsonb   NOT NULL,  -- case numbers of the finals, oldest first
    sources      jsonb   NOT NULL,  -- where in each final: case_number, doc_id, span
    appeal_types jsonb   NOT NULL DEFAULT '{}',  -- finals it recurs in per appeal type
    computed_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX block_templates_block_idx ON block_templates (block);

CREATE TABLE template_state (
    singleton   boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    fingerprint text    NOT NULL,
    finals      integer NOT NULL,
    shares      jsonb   NOT NULL DEFAULT '{}',  -- block -> share of its words in recurring passages
    computed_at timestamptz NOT NULL DEFAULT now()
);

SELECT apply_role_grants();

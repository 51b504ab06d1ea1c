-- 0001_init: corpora, chunks, completeness contract, embedding cache.
-- Frozen once merged: change the schema with a new numbered file, never by editing this one.

CREATE EXTENSION IF NOT EXISTS vector;

-- ---------------------------------------------------------------------------------------------
-- Embedder in force. Chunks embedded by another embedder are stale (not searchable) until
-- `legal-ai reindex` re-embeds them; changing the embedder therefore never drops data.
CREATE TABLE embedding_config (
    singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    embedder   text    NOT NULL,
    dim        integer NOT NULL CHECK (dim > 0),
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE FUNCTION active_embedder() RETURNS text
LANGUAGE sql STABLE AS $$ SELECT embedder FROM embedding_config $$;

-- Persistent embedding cache: (embedder, sha256 of the exact text embedded) -> vector.
CREATE TABLE embedding_cache (
    embedder   text   NOT NULL,
    text_hash  text   NOT NULL,
    embedding  vector NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (embedder, text_hash)
);

-- ---------------------------------------------------------------------------------------------
-- Completeness contract (INV-RET2): the fields each corpus and document type requires before an
-- item may be searched. The trigger below reads this table; the application reads it to explain.
CREATE TABLE corpus_requirements (
    corpus   text NOT NULL,
    doc_type text NOT NULL,
    field    text NOT NULL,
    PRIMARY KEY (corpus, doc_type, field)
);

INSERT INTO corpus_requirements (corpus, doc_type, field) VALUES
    ('case',     'document',    'case_number'),
    ('case',     'document',    'practice_area'),
    ('style',    'document',    'case_number'),
    ('style',    'document',    'practice_area'),
    ('external', 'ruling',      'title'),
    ('external', 'ruling',      'court'),
    ('external', 'ruling',      'case_number'),
    ('external', 'ruling',      'decided_on'),
    ('external', 'legislation', 'title'),
    ('external', 'legislation', 'law_title'),
    ('external', 'legislation', 'section_num'),
    ('external', 'reference',   'title'),
    ('internal', 'decision',    'title'),
    ('internal', 'decision',    'case_number'),
    ('internal', 'decision',    'decided_on'),
    ('internal', 'decision',    'chair_name'),
    ('internal', 'decision',    'practice_area'),
    ('digests',  'digest',      'title'),
    ('digests',  'digest',      'points_to');

-- ---------------------------------------------------------------------------------------------
CREATE TABLE cases (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    case_number   text NOT NULL UNIQUE CHECK (btrim(case_number) <> ''),
    title         text,
    practice_area text,
    appeal_type   text,
    committee     text,
    chair_name    text,
    metadata      jsonb NOT NULL DEFAULT '{}',
    created_at    timestamptz NOT NULL DEFAULT now()
);

-- Columns every searchable item table shares (documents, case_law, digests):
--   doc_id        the caller's stable external id, unique within the corpus
--   content       the full extracted text; chunk spans are offsets into it
--   page_starts   offset of each page in content (NULL for formats without pages)
--   content_hash  sha256 of content: unchanged content is never re-chunked or re-embedded
--   file_sha256   sha256 of the uploaded file's bytes (duplicate uploads are refused)
--   extraction_issue  why no text could be read (e.g. an image-only PDF needs OCR)
--   missing       computed by the database: required fields absent, plus extraction_issue
--   searchable    computed by the database: nothing missing and at least one chunk embedded by
--                 the active embedder from its current text, whose span resolves in content
CREATE TABLE documents (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    corpus           text NOT NULL CHECK (corpus IN ('case', 'style')),
    doc_type         text NOT NULL DEFAULT 'document' CHECK (doc_type = 'document'),
    doc_id           text NOT NULL CHECK (btrim(doc_id) <> ''),
    case_number      text REFERENCES cases (case_number) ON UPDATE CASCADE,
    practice_area    text,
    title            text,
    source_path      text,
    source_format    text,
    content          text NOT NULL DEFAULT '',
    page_starts      integer[],
    content_hash     text NOT NULL,
    file_sha256      text,
    extraction_issue text,
    metadata         jsonb NOT NULL DEFAULT '{}',
    version          integer NOT NULL DEFAULT 1,
    missing          text[] NOT NULL DEFAULT '{}',
    searchable       boolean NOT NULL DEFAULT false,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (corpus, doc_id),
    UNIQUE (id, corpus)
);
CREATE INDEX documents_case_idx ON documents (case_number);
CREATE INDEX documents_file_idx ON documents (corpus, file_sha256);

CREATE TABLE case_law (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    source_kind      text NOT NULL CHECK (source_kind IN ('external_upload', 'internal_committee')),
    doc_type         text NOT NULL CHECK (doc_type IN ('ruling', 'legislation', 'reference', 'decision')),
    doc_id           text NOT NULL CHECK (btrim(doc_id) <> ''),
    case_number      text,
    title            text,
    court            text,
    decided_on       date,
    judges           text[] NOT NULL DEFAULT '{}',
    chair_name       text,
    is_binding       boolean NOT NULL DEFAULT false,
    headnote         text,
    summary          text,
    tags             text[] NOT NULL DEFAULT '{}',
    practice_area    text,
    law_title        text,
    section_num      text,
    eid              text,
    source_path      text,
    source_format    text,
    content          text NOT NULL DEFAULT '',
    page_starts      integer[],
    content_hash     text NOT NULL,
    file_sha256      text,
    extraction_issue text,
    metadata         jsonb NOT NULL DEFAULT '{}',
    version          integer NOT NULL DEFAULT 1,
    missing          text[] NOT NULL DEFAULT '{}',
    searchable       boolean NOT NULL DEFAULT false,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (source_kind, doc_id),
    UNIQUE (id, source_kind),
    -- An internal committee decision always names its chair.
    CONSTRAINT internal_has_chair CHECK (
        source_kind <> 'internal_committee' OR coalesce(btrim(chair_name), '') <> ''),
    CONSTRAINT doc_type_fits_source CHECK (
        (source_kind = 'internal_committee') = (doc_type = 'decision'))
);
CREATE INDEX case_law_case_number_idx ON case_law (case_number);
CREATE INDEX case_law_file_idx ON case_law (source_kind, file_sha256);

CREATE TABLE digests (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    doc_type         text NOT NULL DEFAULT 'digest' CHECK (doc_type = 'digest'),
    doc_id           text NOT NULL UNIQUE CHECK (btrim(doc_id) <> ''),
    title            text,
    points_to        text,          -- the citation of the ruling this digest summarises
    case_law_id      bigint REFERENCES case_law (id) ON DELETE SET NULL,
    publisher        text,
    published_on     date,
    practice_area    text,
    source_path      text,
    source_format    text,
    content          text NOT NULL DEFAULT '',
    page_starts      integer[],
    content_hash     text NOT NULL,
    file_sha256      text,
    extraction_issue text,
    metadata         jsonb NOT NULL DEFAULT '{}',
    version          integer NOT NULL DEFAULT 1,
    missing          text[] NOT NULL DEFAULT '{}',
    searchable       boolean NOT NULL DEFAULT false,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX digests_file_idx ON digests (file_sha256);

CREATE TABLE case_precedents (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    case_number  text NOT NULL REFERENCES cases (case_number) ON UPDATE CASCADE ON DELETE CASCADE,
    citation     text NOT NULL CHECK (btrim(citation) <> ''),
    citation_key text NOT NULL,
    case_law_id  bigint REFERENCES case_law (id) ON DELETE SET NULL,
    note         text,
    created_at   timestamptz NOT NULL DEFAULT now(),
    UNIQUE (case_number, citation_key)
);

-- ---------------------------------------------------------------------------------------------
-- Chunk tables. Case and style chunks are list-partitioned by corpus, case-law chunks and
-- principles by source_kind: each corpus has physically separate rows and its own indexes, and
-- a composite foreign key keeps every chunk in the partition of its parent's corpus.
-- The embedding column has no fixed dimension; each embedder has its own partial HNSW index
-- over a cast to its dimension, so switching embedders needs a re-embed, not a migration.
CREATE TABLE document_chunks (
    id            bigint GENERATED ALWAYS AS IDENTITY,
    corpus        text    NOT NULL,
    document_id   bigint  NOT NULL,
    ordinal       integer NOT NULL,
    page          integer,
    char_start    integer NOT NULL CHECK (char_start >= 0),
    char_end      integer NOT NULL,
    section       text,
    text          text    NOT NULL,
    text_hash     text    NOT NULL,
    analyzed      text    NOT NULL,
    analyzer      text    NOT NULL,
    tsv           tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, analyzed)) STORED,
    embedding     vector,
    embedder      text,
    embedded_hash text,
    PRIMARY KEY (id, corpus),
    UNIQUE (document_id, ordinal, corpus),
    FOREIGN KEY (document_id, corpus) REFERENCES documents (id, corpus) ON DELETE CASCADE,
    CHECK (char_end > char_start)
) PARTITION BY LIST (corpus);
CREATE TABLE document_chunks_case  PARTITION OF document_chunks FOR VALUES IN ('case');
CREATE TABLE document_chunks_style PARTITION OF document_chunks FOR VALUES IN ('style');

CREATE TABLE case_law_chunks (
    id            bigint GENERATED ALWAYS AS IDENTITY,
    source_kind   text    NOT NULL,
    case_law_id   bigint  NOT NULL,
    ordinal       integer NOT NULL,
    page          integer,
    char_start    integer NOT NULL CHECK (char_start >= 0),
    char_end      integer NOT NULL,
    section       text,
    text          text    NOT NULL,
    text_hash     text    NOT NULL,
    analyzed      text    NOT NULL,
    analyzer      text    NOT NULL,
    tsv           tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, analyzed)) STORED,
    embedding     vector,
    embedder      text,
    embedded_hash text,
    PRIMARY KEY (id, source_kind),
    UNIQUE (case_law_id, ordinal, source_kind),
    FOREIGN KEY (case_law_id, source_kind) REFERENCES case_law (id, source_kind) ON DELETE CASCADE,
    CHECK (char_end > char_start)
) PARTITION BY LIST (source_kind);
CREATE TABLE case_law_chunks_external PARTITION OF case_law_chunks FOR VALUES IN ('external_upload');
CREATE TABLE case_law_chunks_internal PARTITION OF case_law_chunks FOR VALUES IN ('internal_committee');

-- Principles (rules) distilled from a ruling, each grounded in a supporting quote and its page.
CREATE TABLE case_law_principles (
    id               bigint GENERATED ALWAYS AS IDENTITY,
    source_kind      text    NOT NULL,
    case_law_id      bigint  NOT NULL,
    rule_text        text    NOT NULL CHECK (btrim(rule_text) <> ''),
    supporting_quote text    NOT NULL CHECK (btrim(supporting_quote) <> ''),
    page             integer,
    char_start       integer,
    char_end         integer,
    review_status    text    NOT NULL DEFAULT 'proposed'
                     CHECK (review_status IN ('proposed', 'approved', 'rejected', 'vetoed')),
    text_hash        text    NOT NULL,
    analyzed         text    NOT NULL,
    analyzer         text    NOT NULL,
    tsv              tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, analyzed)) STORED,
    embedding        vector,
    embedder         text,
    embedded_hash    text,
    created_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (id, source_kind),
    FOREIGN KEY (case_law_id, source_kind) REFERENCES case_law (id, source_kind) ON DELETE CASCADE
) PARTITION BY LIST (source_kind);
CREATE TABLE case_law_principles_external PARTITION OF case_law_principles FOR VALUES IN ('external_upload');
CREATE TABLE case_law_principles_internal PARTITION OF case_law_principles FOR VALUES IN ('internal_committee');

CREATE TABLE digest_chunks (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    digest_id     bigint  NOT NULL REFERENCES digests (id) ON DELETE CASCADE,
    ordinal       integer NOT NULL,
    page          integer,
    char_start    integer NOT NULL CHECK (char_start >= 0),
    char_end      integer NOT NULL,
    section       text,
    text          text    NOT NULL,
    text_hash     text    NOT NULL,
    analyzed      text    NOT NULL,
    analyzer      text    NOT NULL,
    tsv           tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, analyzed)) STORED,
    embedding     vector,
    embedder      text,
    embedded_hash text,
    UNIQUE (digest_id, ordinal),
    CHECK (char_end > char_start)
);

-- Per-partition indexes: parent lookup, full text (GIN), and one partial HNSW per embedder.
DO $$
DECLARE
    t record;
BEGIN
    FOR t IN SELECT * FROM (VALUES
        ('document_chunks_case', 'document_id'),
        ('document_chunks_style', 'document_id'),
        ('case_law_chunks_external', 'case_law_id'),
        ('case_law_chunks_internal', 'case_law_id'),
        ('case_law_principles_external', 'case_law_id'),
        ('case_law_principles_internal', 'case_law_id'),
        ('digest_chunks', 'digest_id')) AS v(tbl, fk)
    LOOP
        EXECUTE format('CREATE INDEX %I ON %I (%I)', t.tbl || '_parent_idx', t.tbl, t.fk);
        EXECUTE format('CREATE INDEX %I ON %I USING gin (tsv)', t.tbl || '_tsv_idx', t.tbl);
        EXECUTE format('CREATE INDEX %I ON %I USING hnsw ((embedding::vector(384)) vector_cosine_ops)'
                       ' WHERE embedder = %L', t.tbl || '_e5_local_hnsw', t.tbl, 'e5-local');
        EXECUTE format('CREATE INDEX %I ON %I USING hnsw ((embedding::vector(1024)) vector_cosine_ops)'
                       ' WHERE embedder = %L', t.tbl || '_voyage_hnsw', t.tbl, 'voyage');
    END LOOP;
END $$;

-- ---------------------------------------------------------------------------------------------
-- The completeness contract, computed by the database.
-- item_missing: required fields of the row's corpus and doc_type that are NULL or blank (a field
-- may also be supplied in metadata), plus the extraction issue if there is one.
CREATE FUNCTION item_missing(item jsonb, corpus text) RETURNS text[]
LANGUAGE sql STABLE AS $$
    SELECT coalesce(array_agg(r.field ORDER BY r.field), '{}')
           || CASE WHEN item->>'extraction_issue' IS NULL THEN '{}'::text[]
                   ELSE ARRAY['text: ' || (item->>'extraction_issue')] END
    FROM corpus_requirements r
    WHERE r.corpus = item_missing.corpus
      AND r.doc_type = item->>'doc_type'
      AND coalesce(nullif(btrim(item->>r.field), ''), nullif(btrim(item->'metadata'->>r.field), ''),
                   CASE WHEN jsonb_typeof(item->r.field) = 'array'
                         AND jsonb_array_length(item->r.field) > 0 THEN 'x' END) IS NULL
$$;

-- BEFORE INSERT/UPDATE on an item table. TG_ARGV: chunk table, its parent column, and the
-- corpus key (NULL: read it from the row's `corpus` column or map its source_kind).
CREATE FUNCTION item_contract() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    row_json jsonb := to_jsonb(NEW);
    corpus_key text := coalesce(
        row_json->>'corpus',
        CASE row_json->>'source_kind' WHEN 'external_upload' THEN 'external'
                                      WHEN 'internal_committee' THEN 'internal' END,
        TG_ARGV[2]);
    has_chunk boolean;
BEGIN
    NEW.missing := item_missing(row_json, corpus_key);
    EXECUTE format(
        'SELECT EXISTS (SELECT 1 FROM %I c WHERE c.%I = $1'
        '  AND c.embedding IS NOT NULL AND c.embedder = active_embedder()'
        '  AND c.embedded_hash = c.text_hash'
        '  AND substr($2, c.char_start + 1, c.char_end - c.char_start) = c.text'
        '  AND ($3::integer[] IS NULL OR c.page BETWEEN 1 AND cardinality($3::integer[])))',
        TG_ARGV[0], TG_ARGV[1])
    INTO has_chunk USING NEW.id, NEW.content, NEW.page_starts;
    NEW.searchable := cardinality(NEW.missing) = 0 AND has_chunk;
    RETURN NEW;
END $$;

-- AFTER a chunk changes, recompute its parent (the parent's own trigger does the work).
CREATE FUNCTION chunk_touch_parent() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    parent_id bigint;
BEGIN
    IF TG_OP = 'DELETE' THEN
        parent_id := (to_jsonb(OLD)->>TG_ARGV[1])::bigint;
    ELSE
        parent_id := (to_jsonb(NEW)->>TG_ARGV[1])::bigint;
    END IF;
    EXECUTE format('UPDATE %I SET searchable = searchable WHERE id = $1', TG_ARGV[0]) USING parent_id;
    RETURN NULL;
END $$;

CREATE TRIGGER documents_contract BEFORE INSERT OR UPDATE ON documents
    FOR EACH ROW EXECUTE FUNCTION item_contract('document_chunks', 'document_id', NULL);
CREATE TRIGGER case_law_contract BEFORE INSERT OR UPDATE ON case_law
    FOR EACH ROW EXECUTE FUNCTION item_contract('case_law_chunks', 'case_law_id', NULL);
CREATE TRIGGER digests_contract BEFORE INSERT OR UPDATE ON digests
    FOR EACH ROW EXECUTE FUNCTION item_contract('digest_chunks', 'digest_id', 'digests');

CREATE TRIGGER document_chunks_touch AFTER INSERT OR UPDATE OR DELETE ON document_chunks
    FOR EACH ROW EXECUTE FUNCTION chunk_touch_parent('documents', 'document_id');
CREATE TRIGGER case_law_chunks_touch AFTER INSERT OR UPDATE OR DELETE ON case_law_chunks
    FOR EACH ROW EXECUTE FUNCTION chunk_touch_parent('case_law', 'case_law_id');
CREATE TRIGGER digest_chunks_touch AFTER INSERT OR UPDATE OR DELETE ON digest_chunks
    FOR EACH ROW EXECUTE FUNCTION chunk_touch_parent('digests', 'digest_id');

-- Changing the active embedder re-evaluates every item.
CREATE FUNCTION embedder_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE documents SET searchable = searchable;
    UPDATE case_law SET searchable = searchable;
    UPDATE digests SET searchable = searchable;
    RETURN NULL;
END $$;
CREATE TRIGGER embedding_config_changed AFTER INSERT OR UPDATE ON embedding_config
    FOR EACH ROW EXECUTE FUNCTION embedder_changed();

-- 0006_page_images: page images of paginated documents for the optional image leg
-- (MULTIMODAL_ENABLED, Voyage multimodal, 1024-d). Partitioned like the chunks, with the same
-- composite foreign keys, so an image can only belong to an item of its own corpus.
CREATE TABLE document_page_images (
    id            bigint GENERATED ALWAYS AS IDENTITY,
    corpus        text    NOT NULL,
    document_id   bigint  NOT NULL,
    page          integer NOT NULL CHECK (page >= 1),
    text_hash     text    NOT NULL,   -- sha256 of the rendered image
    embedding     vector,
    embedder      text,
    embedded_hash text,
    stale         boolean GENERATED ALWAYS AS (embedded_hash IS DISTINCT FROM text_hash) STORED,
    PRIMARY KEY (id, corpus),
    UNIQUE (document_id, page, corpus),
    FOREIGN KEY (document_id, corpus) REFERENCES documents (id, corpus) ON DELETE CASCADE
) PARTITION BY LIST (corpus);
CREATE TABLE document_page_images_case  PARTITION OF document_page_images FOR VALUES IN ('case');
CREATE TABLE document_page_images_style PARTITION OF document_page_images FOR VALUES IN ('style');

CREATE TABLE case_law_page_images (
    id            bigint GENERATED ALWAYS AS IDENTITY,
    source_kind   text    NOT NULL,
    case_law_id   bigint  NOT NULL,
    page          integer NOT NULL CHECK (page >= 1),
    text_hash     text    NOT NULL,
    embedding     vector,
    embedder      text,
    embedded_hash text,
    stale         boolean GENERATED ALWAYS AS (embedded_hash IS DISTINCT FROM text_hash) STORED,
    PRIMARY KEY (id, source_kind),
    UNIQUE (case_law_id, page, source_kind),
    FOREIGN KEY (case_law_id, source_kind) REFERENCES case_law (id, source_kind) ON DELETE CASCADE
) PARTITION BY LIST (source_kind);
CREATE TABLE case_law_page_images_external PARTITION OF case_law_page_images FOR VALUES IN ('external_upload');
CREATE TABLE case_law_page_images_internal PARTITION OF case_law_page_images FOR VALUES IN ('internal_committee');

DO $$
DECLARE
    t record;
BEGIN
    FOR t IN SELECT * FROM (VALUES
        ('document_page_images_case', 'document_id'),
        ('document_page_images_style', 'document_id'),
        ('case_law_page_images_external', 'case_law_id'),
        ('case_law_page_images_internal', 'case_law_id')) AS v(tbl, fk)
    LOOP
        EXECUTE format('CREATE INDEX %I ON %I (%I)', t.tbl || '_parent_idx', t.tbl, t.fk);
        EXECUTE format('CREATE INDEX %I ON %I USING hnsw ((embedding::vector(1024)) vector_cosine_ops)'
                       ' WHERE embedder = %L', t.tbl || '_mm_hnsw', t.tbl, 'voyage-multimodal');
    END LOOP;
END $$;

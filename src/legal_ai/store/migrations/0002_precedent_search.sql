-- 0002_precedent_search: the chair's attached citations become searchable (precedent_search_library).
ALTER TABLE case_precedents
    ADD COLUMN search_text   text NOT NULL DEFAULT '',
    ADD COLUMN text_hash     text,
    ADD COLUMN analyzed      text NOT NULL DEFAULT '',
    ADD COLUMN analyzer      text,
    ADD COLUMN tsv           tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, analyzed)) STORED,
    ADD COLUMN embedding     vector,
    ADD COLUMN embedder      text,
    ADD COLUMN embedded_hash text;

CREATE INDEX case_precedents_tsv_idx ON case_precedents USING gin (tsv);
CREATE INDEX case_precedents_e5_local_hnsw ON case_precedents
    USING hnsw ((embedding::vector(384)) vector_cosine_ops) WHERE embedder = 'e5-local';
CREATE INDEX case_precedents_voyage_hnsw ON case_precedents
    USING hnsw ((embedding::vector(1024)) vector_cosine_ops) WHERE embedder = 'voyage';

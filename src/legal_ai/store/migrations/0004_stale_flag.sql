-- 0004_stale_flag: a stored flag for "embedded from other text". The legs filter on it instead of
-- comparing two hash columns, whose selectivity the planner cannot estimate (it guessed 0.5 %
-- of rows and chose sequential scans over the HNSW and GIN indexes).
ALTER TABLE document_chunks
    ADD COLUMN stale boolean GENERATED ALWAYS AS (embedded_hash IS DISTINCT FROM text_hash) STORED;
ALTER TABLE case_law_chunks
    ADD COLUMN stale boolean GENERATED ALWAYS AS (embedded_hash IS DISTINCT FROM text_hash) STORED;
ALTER TABLE case_law_principles
    ADD COLUMN stale boolean GENERATED ALWAYS AS (embedded_hash IS DISTINCT FROM text_hash) STORED;
ALTER TABLE digest_chunks
    ADD COLUMN stale boolean GENERATED ALWAYS AS (embedded_hash IS DISTINCT FROM text_hash) STORED;
ALTER TABLE case_precedents
    ADD COLUMN stale boolean GENERATED ALWAYS AS (embedded_hash IS DISTINCT FROM text_hash) STORED;

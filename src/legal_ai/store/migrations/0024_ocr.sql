-- 0024_ocr: scanned PDFs read by OCR in the background (issue 15, item 5).
--
-- * jobs.kind gains 'ocr' (and keeps 'enrichment', added by 0023 for internal decisions enriched
--   on arrival): ingesting a PDF without a text layer keeps the file here and queues one OCR job
--   per file (key `ocr:<file sha256>`); `legal-ai worker` and `legal-ai ocr run` drain it.
-- * scanned_files: the scan's bytes (the only copy the system keeps: the upload may be gone by the
--   time a worker reads it) and, once read, its text with page offsets, the engine that read it
--   and each page's confidence. Keyed by the file's sha256, so the same scan ingested again, or in
--   another corpus (a final is stored in two), is read once and its items get the same text.
--   The items themselves are written through the normal ingest path (chunks, embeddings,
--   item_versions); their metadata carries the confidences (ocr_confidence,
--   ocr_page_confidence, ocr_low_confidence_pages).

ALTER TABLE jobs DROP CONSTRAINT jobs_kind_check;
ALTER TABLE jobs ADD CONSTRAINT jobs_kind_check
    CHECK (kind IN ('learning', 'principles', 'enrichment', 'ocr'));

CREATE TABLE scanned_files (
    file_sha256     text PRIMARY KEY CHECK (file_sha256 ~ '^[0-9a-f]{64}$'),
    pdf             bytea NOT NULL CHECK (length(pdf) > 0),
    bytes           integer GENERATED ALWAYS AS (length(pdf)) STORED,
    created_at      timestamptz NOT NULL DEFAULT now(),
    -- Set together when the scan has been read (a file whose pages held nothing has content '').
    engine          text,
    content         text,
    page_starts     integer[],
    -- One object per page, in order: {"page", "confidence" (0-100 or null), "words", "error"}.
    page_confidence jsonb CHECK (page_confidence IS NULL OR jsonb_typeof(page_confidence) = 'array'),
    read_at         timestamptz,
    CONSTRAINT read_whole CHECK (
        (read_at IS NULL AND content IS NULL AND engine IS NULL AND page_confidence IS NULL)
        OR (read_at IS NOT NULL AND content IS NOT NULL AND engine IS NOT NULL
            AND page_confidence IS NOT NULL AND page_starts IS NOT NULL))
);

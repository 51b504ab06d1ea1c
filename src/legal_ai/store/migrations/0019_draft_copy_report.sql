-- 0019_draft_copy_report: the copy policy's report on a draft (issue 14 item 5; 07-learning §0.1,
-- INV-LRN5), stored with the draft it checked and shown with its pair. `legal-ai draft add` runs
-- the check on every registration (the same text again refreshes it: the library may have
-- grown); the report is the JSON `legal-ai draft check` prints:
--   {"case_number", "passages": [{"kind": template | analysis | substance, "text",
--     "source": {"case_number", "doc_id", "char_start", "char_end"}}],
--    "citations": [{"text", "ref", "status": found | not_in_library | quote_not_found, "doc_id"}]}
ALTER TABLE drafts
    ADD COLUMN copy_report jsonb CHECK (copy_report IS NULL OR jsonb_typeof(copy_report) = 'object'),
    ADD COLUMN copy_checked_at timestamptz;

-- 0039_spans_verified: spans that stay true and changes that are seen (issue 34, items 1-2;
-- DESIGN INV-RET5, G6; docs/search.md "What is verified").
--
-- 1. Chunks: each chunk carries `chunk_total`, how many chunks its item was cut into (ordinals
--    0 .. chunk_total - 1). A chunk deleted or added in SQL leaves an item whose chunks do not
--    count up to it: store/integrity.py reports it, `legal-ai reindex` cuts the item again.
-- 2. Principles: `span_hash`, the sha256 of the text its span (char_start, char_end) reads in its
--    item (at extraction, the supporting quote itself; filled here when a writer leaves it out).
--    A search hit whose span no longer reads that text is not returned (retrieval/search.py). On
--    every change of its item's text the span is found again (its quote in the new text: new
--    span, page and hash) or the principle is *returned to the chair*: `returned_reason` /
--    `returned_at`, set by the system, cleared only by her decision through the gate (its
--    status changes); while returned it is no search hit (corpora.py's condition).
-- 3. Canonical principles: `statement_hash`, the sha256 of the statement standing (the
--    synthesized or her wording, else the source wording), written by a trigger on every write
--    the gate let through; a statement changed with the triggers off does not carry it (health).

ALTER TABLE document_chunks ADD COLUMN chunk_total integer CHECK (chunk_total > 0);
ALTER TABLE case_law_chunks ADD COLUMN chunk_total integer CHECK (chunk_total > 0);
ALTER TABLE digest_chunks ADD COLUMN chunk_total integer CHECK (chunk_total > 0);

-- Backfill: each item's chunks as they are now (a hole already there is not invented away: its
-- ordinals still do not run 0 .. n - 1, and the check says so).
UPDATE document_chunks c SET chunk_total = n.total
FROM (SELECT document_id, count(*)::integer AS total FROM document_chunks GROUP BY document_id) n
WHERE n.document_id = c.document_id;
UPDATE case_law_chunks c SET chunk_total = n.total
FROM (SELECT case_law_id, count(*)::integer AS total FROM case_law_chunks GROUP BY case_law_id) n
WHERE n.case_law_id = c.case_law_id;
UPDATE digest_chunks c SET chunk_total = n.total
FROM (SELECT digest_id, count(*)::integer AS total FROM digest_chunks GROUP BY digest_id) n
WHERE n.digest_id = c.digest_id;

ALTER TABLE case_law_principles
    ADD COLUMN span_hash text,
    ADD COLUMN returned_reason text CHECK (btrim(returned_reason) <> ''),
    ADD COLUMN returned_at timestamptz,
    ADD CONSTRAINT case_law_principles_returned_check
        CHECK ((returned_reason IS NULL) = (returned_at IS NULL));

-- A principle's span hash: the writer's, else its quote's (the text its span reads when it is
-- extracted). The chair's decision (a status change) takes a returned principle back; nothing
-- else clears the return.
CREATE FUNCTION principle_span() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.span_hash IS NULL THEN
        NEW.span_hash := encode(sha256(convert_to(NEW.supporting_quote, 'UTF8')), 'hex');
    END IF;
    IF TG_OP = 'INSERT' THEN
        IF NEW.returned_at IS NOT NULL THEN
            RAISE EXCEPTION 'a principle is returned to the chair after it was drawn, not when'
                USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
    END IF;
    IF NEW.review_status IS DISTINCT FROM OLD.review_status THEN
        NEW.returned_reason := NULL;  -- her decision, through the gate, answers the return
        NEW.returned_at := NULL;
    ELSIF OLD.returned_at IS NOT NULL
          AND (NEW.returned_reason, NEW.returned_at)
              IS DISTINCT FROM (OLD.returned_reason, OLD.returned_at) THEN
        RAISE EXCEPTION 'principle % was returned to the chair: only her decision takes it back',
            OLD.id USING ERRCODE = 'check_violation';
    ELSIF NEW.returned_at IS NOT NULL AND OLD.returned_at IS NULL THEN
        NEW.returned_at := now();
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER principle_span BEFORE INSERT OR UPDATE ON case_law_principles
    FOR EACH ROW EXECUTE FUNCTION principle_span();

UPDATE case_law_principles
SET span_hash = encode(sha256(convert_to(supporting_quote, 'UTF8')), 'hex')
WHERE span_hash IS NULL;

ALTER TABLE canonical_principles ADD COLUMN statement_hash text;

CREATE FUNCTION canonical_statement_hash() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.statement_hash := encode(sha256(convert_to(
        coalesce(NEW.canonical_statement, NEW.rule_text), 'UTF8')), 'hex');
    RETURN NEW;
END $$;
-- Named after canonical_principles_gate: BEFORE triggers fire by name, so the hash is taken of
-- what the gate let through.
CREATE TRIGGER canonical_statement_hash BEFORE INSERT OR UPDATE ON canonical_principles
    FOR EACH ROW EXECUTE FUNCTION canonical_statement_hash();

UPDATE canonical_principles
SET statement_hash = encode(sha256(convert_to(coalesce(canonical_statement, rule_text), 'UTF8')),
                            'hex');

SELECT pin_search_paths();

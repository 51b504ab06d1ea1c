-- 0032_precedent_search_text: the chair's attached precedents stored by the first release
-- (before 0002 made them searchable) were left by 0002 with an empty search_text, no hash, no
-- analysis and no embedding, and nothing ever wrote them: `legal-ai reindex` would have embedded
-- the empty text. Found by the upgrade test (tests/store/test_upgrades.py, issue 24).
--
-- Their text is written here as `App.attach_precedent` writes it — the citation, the chair's
-- note and the cited ruling's title, joined by " — " — with its hash. Analysis and embedding
-- are the application's: `legal-ai health` counts these rows under stale analysis and missing
-- embeddings until `legal-ai reindex` does both.
UPDATE case_precedents p
SET search_text = s.text,
    text_hash = encode(sha256(convert_to(s.text, 'UTF8')), 'hex')
FROM (
    SELECT q.id,
           concat_ws(' — ', q.citation, nullif(q.note, ''),
                     (SELECT nullif(c.title, '') FROM case_law c WHERE c.id = q.case_law_id))
               AS text
    FROM case_precedents q
    WHERE q.search_text = '' AND q.embedding IS NULL
) s
WHERE p.id = s.id;

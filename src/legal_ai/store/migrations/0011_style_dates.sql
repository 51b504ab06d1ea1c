-- 0011_style_dates: the chair's finals (style corpus) carry their decision date, so that
-- `search_decisions` can honour the date range it offers (issue 10: a filter a corpus cannot apply
-- is refused, never ignored; this one the style corpus now applies).
ALTER TABLE documents ADD COLUMN decided_on date;

-- Finals uploaded before: their date is the one their committee decision carries.
UPDATE documents d SET decided_on = c.decided_on
FROM case_law c
WHERE d.corpus = 'style' AND c.source_kind = 'internal_committee'
  AND c.case_number = d.case_number AND d.decided_on IS NULL;

CREATE INDEX documents_decided_idx ON documents (corpus, decided_on);

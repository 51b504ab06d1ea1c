-- 0053: the statute sections' eIds indexed for the reference leg (issue 39).
--
-- A query that names a section (`סעיף 197`) looks up the items whose eId matches it
-- (retrieval/legs.py, `reference`). Only a statute's sections carry an eId; with no index the
-- lookup read every item of the corpus, case law included, from the heap: 70,000 items and
-- 240 MB at 1,000,000 chunks, 35-72 ms for a query that names one section and finds none.
-- A partial index of the items that carry one lets the leg read those alone.

CREATE INDEX case_law_eid_idx ON case_law (eid) WHERE eid IS NOT NULL;

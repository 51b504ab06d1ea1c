-- 0054: the items of a practice area indexed, so that a search knows an area is empty (issue 39).
--
-- Under a practice-area filter the semantic leg reads the area's own HNSW index where
-- `practice_area_indexes()` (0052) made one; an area no item of the corpus holds has none, and
-- the leg walked the whole partition's graph until `hnsw.max_scan_tuples` without a hit: 63 /
-- 135 ms (p50 / p95) at 1,000,000 chunks for the internal corpus, every time, to answer
-- nothing. The search now asks first, while the model embeds the query, whether any item of
-- the corpus is in the area (retrieval/legs.py, `area_lookup`); these indexes answer that
-- without reading the items.

CREATE INDEX documents_area_idx ON documents (corpus, practice_area)
    WHERE practice_area IS NOT NULL;
CREATE INDEX case_law_area_idx ON case_law (source_kind, practice_area)
    WHERE practice_area IS NOT NULL;

-- 0008_lexicon_repair: deletes and re-analyses aimed at a chunk PARTITION did not fire the
-- partitioned root's statement-level lexicon triggers, so document frequencies and unit counts
-- kept counting replaced chunks. The application now writes through the root (store/items.py,
-- store/maintenance.py); this rebuilds the statistics once from the chunks themselves.
SELECT lexicon_rebuild();

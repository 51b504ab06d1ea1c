-- 0056: the library re-keyed again, by what the citation parser and a ruling's identity read now.
--
-- The parser now reads citations as decisions write them (text/citations.py): every dash between
-- a case number's parts, a geresh or two for the gershayim (בג''ץ, עע'מ), niqqud and bidi marks
-- inside a citation, `מספר` and `מס'` after the district, and `1234-05-2019` as 1234/05/19 where
-- it had been read as 1234/05 (another ruling). A ruling's identity reads a year written with its
-- century as its last two digits (`ערר 1042/2023` is `ערר 1042/23`; the case number keeps what
-- was written). Citations stored before were keyed by the old reading, and library items'
-- identity columns by the old identity: the re-key of 0029 (learning/arrival/rekey.py), run by
-- the application right after migrating, reads each stored citation and each item's case number
-- again and decides every link again; `db migrate` prints what changed and `legal-ai health`
-- keeps it until marked seen.

-- One re-key does both: a database migrated past 0029 in the same run has its re-key pending
-- already.
INSERT INTO library_rekeys (status)
SELECT 'pending' WHERE NOT EXISTS (SELECT 1 FROM library_rekeys WHERE status = 'pending');

-- 0048_principle_vote_reasons: each principle-panel model's reason, in Hebrew, for the chair
-- (issue 37 item 7).
--
-- The principle panel is now asked, beside each candidate's rule, quote and score, why the text
-- lays the rule down, in Hebrew ("נמקי בעברית"); the model's reason is kept on its vote and the
-- desk shows it on the principle's item. A model that did not propose the principle gave no
-- reason for it (NULL). The row stays the system's own: principle_vote_gate (0027) lets only the
-- worker insert a vote, tied to its extraction call, and principle_votes_append_only refuses any
-- UPDATE or DELETE, so no role (the chair's, an agent's, the worker's) rewrites a reason once
-- written. No grant changes: the worker's INSERT and the readers' SELECT are on the whole table.

ALTER TABLE principle_votes
    ADD COLUMN reason text
        CONSTRAINT principle_vote_reason_text
        CHECK (reason IS NULL OR (btrim(reason) <> '' AND length(reason) <= 2000)),
    ADD CONSTRAINT principle_vote_reason_of_a_vote CHECK (voted OR reason IS NULL);

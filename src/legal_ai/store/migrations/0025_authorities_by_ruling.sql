-- 0025_authorities_by_ruling: how many committee decisions cite a ruling, in one place.
-- ruling_corroboration(case_law_id) sums its authorities' corroboration; it is read for every
-- principle a search returns, every principle listed and every canonical principle (before this,
-- three copies of the subquery, each scanning authorities: no index on case_law_id).
CREATE INDEX authorities_case_law_idx ON authorities (case_law_id) WHERE case_law_id IS NOT NULL;

CREATE FUNCTION ruling_corroboration(ruling bigint) RETURNS integer
LANGUAGE sql STABLE AS $$
    SELECT coalesce(sum(corroboration), 0)::integer FROM authorities WHERE case_law_id = ruling
$$;

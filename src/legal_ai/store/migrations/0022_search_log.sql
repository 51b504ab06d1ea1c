-- 0022_search_log: search telemetry (issue 15 item 2; 03-retrieval §3 `log_search`;
-- legal_ai/telemetry.py).
--
-- * search_log: one row per search made through an interface (CLI, MCP, the HTTP API, the
--   desk): the corpus, the query (cleaned and bounded), its filters, mode and size, the hits
--   returned with their ranks (doc_id and the unit: chunk, principle, precedent or page), the
--   latency, who asked (the authenticated principal's actor and kind) and where from.
-- * search_marks: what the chair did with a search's hits on the desk: she opened a hit's
--   source (`click`) or marked it useful (`useful`); a mark names the hit by its rank in the
--   logged search and copies its doc_id and unit. Only the chair's role marks (where the roles
--   exist). Marked searches become a BEIR gold set (`legal-ai telemetry export --qrels`).
-- * Both stay on this machine and are pruned after LEGAL_AI_TELEMETRY_RETENTION_DAYS.

CREATE TABLE search_log (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at          timestamptz NOT NULL DEFAULT now(),
    surface     text    NOT NULL CHECK (surface IN ('cli', 'mcp', 'api', 'desk')),
    actor       text    NOT NULL CHECK (btrim(actor) <> '' AND length(actor) <= 200),
    actor_kind  text    NOT NULL CHECK (actor_kind IN ('chair', 'agent', 'operator')),
    corpus      text    NOT NULL,
    tool        text,
    query       text    NOT NULL CHECK (length(query) <= 2000),
    by_example  boolean NOT NULL DEFAULT false,  -- find_similar_cases by a case's own text
    filters     jsonb   NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(filters) = 'object'),
    mode        text    NOT NULL,
    k           integer NOT NULL CHECK (k >= 1),
    hits        jsonb   NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(hits) = 'array'),
    n_hits      integer NOT NULL CHECK (n_hits >= 0),
    latency_ms  real    NOT NULL CHECK (latency_ms >= 0)
);
CREATE INDEX search_log_at_idx ON search_log (at);

CREATE TABLE search_marks (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    search_id   bigint  NOT NULL REFERENCES search_log (id) ON DELETE CASCADE,
    rank        integer NOT NULL CHECK (rank >= 1),
    kind        text    NOT NULL CHECK (kind IN ('click', 'useful')),
    doc_id      text    NOT NULL,
    unit_kind   text,
    unit_id     bigint,
    actor       text    NOT NULL,
    at          timestamptz NOT NULL DEFAULT now(),
    UNIQUE (search_id, rank, kind)
);

CREATE FUNCTION search_mark_gate() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NOT coalesce(acting_as_chair(), NEW.actor = 'chair') THEN
        RAISE EXCEPTION 'only the chair marks search results (running as %)', current_user
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER search_marks_gate BEFORE INSERT OR UPDATE ON search_marks
    FOR EACH ROW EXECUTE FUNCTION search_mark_gate();

SELECT apply_role_grants();

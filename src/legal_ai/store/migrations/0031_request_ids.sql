-- 0031_request_ids: the HTTP request that wrote a row (issue 24, item 4).
--
-- Every HTTP request has an id (its X-Request-ID when well formed, else a new one; logs.py),
-- returned in the response's X-Request-ID and carried by each of its log lines. Each
-- transaction the request runs sets it in the session (`legal_ai.request_id`, store/db.py), and
-- the rows it writes here record it by default: the audit (every gate's row, whoever inserts
-- it), the search log and the model calls. NULL: written outside a request (the CLI, the worker,
-- the MCP server over stdio) or before this migration. At most 128 characters are kept; nothing
-- is refused for it (a request id never blocks a decision).

ALTER TABLE learning_audit
    ADD COLUMN request_id text DEFAULT left(nullif(current_setting('legal_ai.request_id', true), ''), 128);
ALTER TABLE search_log
    ADD COLUMN request_id text DEFAULT left(nullif(current_setting('legal_ai.request_id', true), ''), 128);
ALTER TABLE model_calls
    ADD COLUMN request_id text DEFAULT left(nullif(current_setting('legal_ai.request_id', true), ''), 128);

CREATE INDEX learning_audit_request_idx ON learning_audit (request_id) WHERE request_id IS NOT NULL;
CREATE INDEX search_log_request_idx ON search_log (request_id) WHERE request_id IS NOT NULL;

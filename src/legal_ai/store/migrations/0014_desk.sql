-- 0014_desk: the chair's desk signs her in with a password (issue 12).
--
-- desk_users holds the argon2 hash of each desk password (never the password); desk_sessions
-- holds the SHA-256 of each session cookie's token (never the token: a copy of this table does
-- not sign anyone in) with its CSRF token and its idle and absolute ends; desk_login_failures
-- counts failed sign-ins per name and client for the rate limit.
--
-- These tables are the server's own, read and written by the application's login before any
-- principal is known. No request role reads or writes them: an agent (or a chair-token API
-- request) cannot read a password hash or a session, and cannot mint a chair session in SQL.

CREATE TABLE desk_users (
    name          text PRIMARY KEY CHECK (name ~ '^[a-z][a-z0-9_-]{0,62}$'),
    password_hash text NOT NULL CHECK (password_hash LIKE '$argon2%'),
    updated_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE desk_sessions (
    token_hash text PRIMARY KEY CHECK (token_hash ~ '^[0-9a-f]{64}$'),
    name       text NOT NULL REFERENCES desk_users (name) ON DELETE CASCADE,
    csrf       text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    last_seen  timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL
);
CREATE INDEX desk_sessions_name_idx ON desk_sessions (name);
CREATE INDEX desk_sessions_expires_idx ON desk_sessions (expires_at);

CREATE TABLE desk_login_failures (
    name   text NOT NULL,
    client text NOT NULL,
    at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX desk_login_failures_idx ON desk_login_failures (name, client, at);

-- The grants of 0010 (re-applied by `legal-ai db migrate` and after a restore) give the request
-- roles every table of the schema; this version of apply_role_grants takes the desk's tables
-- away from them again, each time it runs.
ALTER FUNCTION apply_role_grants() RENAME TO apply_role_grants_0010;

CREATE FUNCTION apply_role_grants() RETURNS boolean
LANGUAGE plpgsql AS $grants$
DECLARE
    granted boolean := apply_role_grants_0010();
    r text;
BEGIN
    FOREACH r IN ARRAY ARRAY['legal_ai_agent', 'legal_ai_chair']
    LOOP
        IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN
            EXECUTE format('REVOKE ALL ON desk_users, desk_sessions, desk_login_failures FROM %I',
                           r);
        END IF;
    END LOOP;
    RETURN granted;
END $grants$;

DO $desk$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'legal_ai_agent') THEN
        PERFORM apply_role_grants();
    END IF;
END $desk$;

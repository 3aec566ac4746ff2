-- 012-http-runs.sql - migration 12 (user_version 11 -> 12): the server of a run recorded over
-- HTTP (belay-http, docs/HTTP.md) is a URL, not a command: its upstream URL (as recorded: no
-- user information, the query hashed) and the loopback listener the agent talked to. Kept
-- apart from server_argv so that nothing (a corpus case, verify) ever tries to run a URL as a
-- command. Owned by src/index/runidx.c (the `http` record `run`); derived from the trace, so
-- a rebuild reproduces it. Never edited once released.
ALTER TABLE runs ADD COLUMN http_upstream TEXT; -- NULL: not an HTTP run
ALTER TABLE runs ADD COLUMN http_listener TEXT; -- 127.0.0.1:PORT (the path's secret is never kept)

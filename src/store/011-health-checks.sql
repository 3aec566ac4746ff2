-- 011-health-checks.sql - migration 11 (user_version 10 -> 11): what a contained run's server
-- was let write in its workspace (the exit record's workspace_writes), so that a connection
-- that made no tools/call, had no denial and wrote nothing - an agent's health check such as
-- `claude mcp list` - can be folded in the run lists (src/index/runq.h). Owned by
-- src/index/runidx.c; derived from the trace, so a rebuild reproduces it. Never edited once
-- released.
ALTER TABLE runs ADD COLUMN workspace_writes INTEGER; -- NULL: not known (uncontained, or an older trace)

-- 009-hooks.sql - migration 9 (user_version 8 -> 9): runs recorded from an agent's hooks
-- (docs/HOOKS.md). Owned by src/index/runidx.c; derived from agent_session and hook records,
-- so a rebuild reproduces them. Never edited once released.
ALTER TABLE runs ADD COLUMN agent TEXT;          -- claude-code | cursor | codex (NULL: an MCP run)
ALTER TABLE runs ADD COLUMN session TEXT;        -- the agent's session / conversation id
ALTER TABLE turns ADD COLUMN post_handle TEXT;   -- the post-state captured after a mutating hook turn
ALTER TABLE turns ADD COLUMN post_cause TEXT;    -- UNRESTORABLE_* when that capture failed

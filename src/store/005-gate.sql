-- 005-gate.sql - migration 5 (user_version 4 -> 5): the effect gate's decisions in the run
-- view. Owned by src/index/runidx.c; derived from gate_decision and approval records, so a
-- rebuild reproduces them. Never edited once released.
ALTER TABLE turns ADD COLUMN decision TEXT;    -- allow | allow_flagged | ask | deny (NULL: no gate)
ALTER TABLE turns ADD COLUMN outcome TEXT;     -- forwarded | forwarded (audit) | held | refused | ...
ALTER TABLE turns ADD COLUMN decided_by TEXT;  -- policy | "<user> (approval <id>)" | console
ALTER TABLE turns ADD COLUMN approval TEXT;    -- approved | refused (an operator's answer to a hold)
ALTER TABLE turns ADD COLUMN plan TEXT;        -- the effect plan, compact JSON

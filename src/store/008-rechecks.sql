-- 008-rechecks.sql - migration 8 (user_version 7 -> 8): a partial re-check is its own kind of
-- result. Owned by src/index/verdict_store.c. 'full': a verification that judged its turns
-- on every axis it could (belay verify, the console's v / V / W); 'recheck': a partial
-- re-check (the console's replay-from-here: the result comparison only), stored and shown
-- beside the turn's verdict, never in its place. Every earlier verification was full.
-- Never edited once released.
ALTER TABLE verifications ADD COLUMN kind TEXT NOT NULL DEFAULT 'full';

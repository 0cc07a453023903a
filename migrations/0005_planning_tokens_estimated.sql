-- Whether an attempt's prompt_tokens / completion_tokens were estimated from the text (4 characters a
-- token) because the server never reported usage — a plan stream cut off before its usage chunk
-- (src/planner/token-estimate.ts). 1 for estimated; 0 for counts the server gave and rows written before it.
ALTER TABLE planning_attempts ADD COLUMN tokens_estimated INTEGER NOT NULL DEFAULT 0;

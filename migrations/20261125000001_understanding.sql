-- Rules first, budgets and per-contact limits. Forward-only.

-- `llm_calls` also records the turns the LLM proposer answered without a call:
-- the rules understood the message ('rules') or the bot's daily token budget was
-- spent ('over_budget'), so usage and /metrics show which path each turn took.
ALTER TABLE llm_calls DROP CONSTRAINT llm_calls_outcome_check;
ALTER TABLE llm_calls ADD CONSTRAINT llm_calls_outcome_check
    CHECK (outcome IN ('ok', 'repaired', 'fallback', 'timeout', 'error', 'rules', 'over_budget'));

-- A conversation's messages of the last minute, counted with each turn's claim
-- (the per-contact rate limit).
CREATE INDEX inbox_recent_messages_idx ON inbox (conversation_id, received_at) WHERE kind = 'message';

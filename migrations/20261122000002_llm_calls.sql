-- LLM accounting and catalog search for prompts. Forward-only.

CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- One row per call to an LLM, whatever came of it.
CREATE TABLE llm_calls (
    id                 bigserial PRIMARY KEY,
    bot_id             uuid NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    conversation_id    uuid REFERENCES conversations (id) ON DELETE SET NULL,
    inbox_id           bigint REFERENCES inbox (id) ON DELETE SET NULL,
    model              text NOT NULL,
    response_format    text NOT NULL,
    outcome            text NOT NULL CHECK (outcome IN ('ok', 'repaired', 'fallback', 'timeout', 'error')),
    prompt_tokens      integer NOT NULL DEFAULT 0,
    completion_tokens  integer NOT NULL DEFAULT 0,
    -- Size of what was sent, so prompt growth is visible even without usage figures.
    prompt_chars       integer NOT NULL,
    catalog_items      integer NOT NULL,
    latency_ms         integer NOT NULL,
    -- Estimated cost in millionths of a US dollar, from the configured price table.
    cost_micros        bigint NOT NULL DEFAULT 0,
    error              text,
    created_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX llm_calls_bot_idx ON llm_calls (bot_id, created_at);

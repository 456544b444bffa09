-- How far the merchant's team has read each conversation, apart from the
-- conversation's own row (which turns update under compare-and-set), so the
-- inbox counts what is new. Forward-only.
CREATE TABLE conversation_reads (
    conversation_id  uuid PRIMARY KEY REFERENCES conversations (id) ON DELETE CASCADE,
    bot_id           uuid NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    seen_message_id  bigint NOT NULL,
    seen_at          timestamptz NOT NULL DEFAULT now()
);

-- What the merchant's team writes for itself: private notes on a conversation
-- (the customer never sees them) and canned replies per bot, inserted in the
-- reply box by their shortcut. Forward-only.
CREATE TABLE conversation_notes (
    id               bigserial PRIMARY KEY,
    bot_id           uuid NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    conversation_id  uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    text             text NOT NULL CHECK (length(text) BETWEEN 1 AND 2000),
    created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX conversation_notes_idx ON conversation_notes (conversation_id, id);

CREATE TABLE canned_replies (
    id        bigserial PRIMARY KEY,
    bot_id    uuid NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    shortcut  text NOT NULL CHECK (shortcut ~ '^[a-z0-9-]+$' AND length(shortcut) <= 30),
    text      text NOT NULL CHECK (length(text) BETWEEN 1 AND 1000),
    UNIQUE (bot_id, shortcut)
);

-- Files the bot sends (a person's data as CSV; charts later): kept here so every
-- channel can deliver them — uploaded to Telegram and WhatsApp, linked in web chat
-- under an unguessable address that stops working when the file expires.
CREATE TABLE chat_files (
    id               uuid NOT NULL,
    bot_id           uuid NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    conversation_id  uuid,
    filename         text NOT NULL,
    content_type     text NOT NULL,
    bytes            bytea NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    expires_at       timestamptz NOT NULL,
    PRIMARY KEY (id, bot_id),
    FOREIGN KEY (bot_id, conversation_id) REFERENCES conversations (bot_id, id) ON DELETE CASCADE
);
CREATE INDEX chat_files_expiry ON chat_files (expires_at);

-- Files a web-chat customer sent (payment proofs): on Telegram and WhatsApp the
-- platform keeps the file and Tendero keeps its id; a web chat has no platform,
-- so the bytes live here, read only by the bot's merchant. One row per sent
-- message: a retried upload (same session and client id) is stored once.
CREATE TABLE webchat_uploads (
    id            uuid NOT NULL,
    bot_id        uuid NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    external_id   text NOT NULL,
    content_type  text NOT NULL,
    bytes         bytea NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (id, bot_id),
    UNIQUE (bot_id, external_id)
);

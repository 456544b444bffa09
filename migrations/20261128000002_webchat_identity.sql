-- Web chat on a merchant's own site: a per-bot secret (sealed like the channel
-- secrets) that signs the identities of the site's signed-in users, and the
-- origins whose pages may call the web-chat API. Forward-only.
ALTER TABLE bots ADD COLUMN webchat_identity_secret text;
ALTER TABLE bots ADD COLUMN webchat_origins text[] NOT NULL DEFAULT '{}';

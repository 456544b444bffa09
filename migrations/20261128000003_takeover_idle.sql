-- A takeover the merchant forgot ends on its own: after `takeover_idle_secs`
-- without a message from the merchant the conversation goes back to the bot
-- (NULL: never, the default). Forward-only.
ALTER TABLE bots ADD COLUMN takeover_idle_secs integer
    CHECK (takeover_idle_secs IS NULL OR takeover_idle_secs BETWEEN 60 AND 2592000);

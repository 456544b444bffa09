-- Telegram and WhatsApp credentials per bot, and delivery tracking. Forward-only.

CREATE TABLE bot_channels (
    bot_id                    uuid NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    channel                   text NOT NULL CHECK (channel IN ('telegram', 'whatsapp')),
    telegram_token            text,
    -- Telegram echoes it in X-Telegram-Bot-Api-Secret-Token on every webhook call.
    telegram_secret_token     text CHECK (telegram_secret_token ~ '^[A-Za-z0-9_-]+$' AND length(telegram_secret_token) <= 256),
    whatsapp_phone_number_id  text UNIQUE,
    whatsapp_access_token     text,
    whatsapp_app_secret       text,
    whatsapp_verify_token     text,
    created_at                timestamptz NOT NULL DEFAULT now(),
    updated_at                timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (bot_id, channel),
    CHECK (
        (channel = 'telegram' AND telegram_token IS NOT NULL AND telegram_secret_token IS NOT NULL)
        OR (channel = 'whatsapp' AND whatsapp_phone_number_id IS NOT NULL AND whatsapp_access_token IS NOT NULL
            AND whatsapp_app_secret IS NOT NULL AND whatsapp_verify_token IS NOT NULL)
    )
);

-- The platform's id of a sent message, and what the platform later said of it.
ALTER TABLE outbox ADD COLUMN provider_message_id text;
ALTER TABLE outbox ADD COLUMN delivery_status text;
CREATE INDEX outbox_provider_idx ON outbox (bot_id, provider_message_id) WHERE provider_message_id IS NOT NULL;

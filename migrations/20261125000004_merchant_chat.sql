-- The merchant hears about escalations and payment proofs in a Telegram chat of
-- their own, linked by sending `/start <code>` to the bot. Forward-only.
ALTER TABLE bots ADD COLUMN merchant_chat_id text;
ALTER TABLE bots ADD COLUMN merchant_link_code text UNIQUE;

-- Notifications to the merchant travel the outbox beside the customer's messages,
-- ordered among themselves: a failing notification never holds a customer's reply.
ALTER TABLE outbox ADD COLUMN audience text NOT NULL DEFAULT 'customer'
    CHECK (audience IN ('customer', 'merchant'));

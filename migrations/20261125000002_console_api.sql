-- The merchant API behind the console. Forward-only.

-- A merchant may drop a message that will never be delivered (after reading it).
ALTER TABLE outbox DROP CONSTRAINT outbox_status_check;
ALTER TABLE outbox ADD CONSTRAINT outbox_status_check CHECK (status IN
    ('pending', 'sending', 'sent', 'suppressed', 'failed', 'dead', 'discarded'));
CREATE INDEX outbox_undelivered_idx ON outbox (bot_id, id) WHERE status IN ('failed', 'dead');

-- Keys say what they are for.
ALTER TABLE api_keys ADD COLUMN label text NOT NULL DEFAULT '';

-- A retried write answers what the first one answered, once.
CREATE TABLE api_idempotency (
    merchant_id  uuid NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    key          text NOT NULL,
    -- What the key was first used for: the same key on another request is refused.
    request_hash bytea NOT NULL,
    response     jsonb,
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (merchant_id, key)
);

-- Conversations that need the merchant: escalated, proofs waiting, undelivered replies.
CREATE INDEX orders_proof_received_idx ON orders (conversation_id) WHERE status = 'proof_received';

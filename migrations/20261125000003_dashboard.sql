-- The merchant console's sign-in sessions. Forward-only.

-- A session is opened with an API key and ends with it: revoking the key ends
-- every session it opened. Only a hash of the cookie's token is kept.
CREATE TABLE dashboard_sessions (
    token_hash   bytea PRIMARY KEY,
    merchant_id  uuid NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    key_id       uuid NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    -- Every form carries it; a write without it is refused.
    csrf         text NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL
);
CREATE INDEX dashboard_sessions_expiry_idx ON dashboard_sessions (expires_at);

-- A proof's order, for the console's image proxy.
CREATE INDEX payment_proofs_order_idx ON payment_proofs (order_id);

-- Tendero shop schema, first cut (DESIGN §5). Forward-only: never edit once landed.

CREATE TABLE merchants (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    slug        text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
    name        text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- Only the SHA-256 of a key is stored; the key itself is shown once at creation.
CREATE TABLE api_keys (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    merchant_id uuid NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    key_hash    bytea NOT NULL UNIQUE,
    key_prefix  text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    revoked_at  timestamptz
);

CREATE TABLE bots (
    id                     uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    merchant_id            uuid NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    slug                   text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
    name                   text NOT NULL,
    profile                text NOT NULL DEFAULT 'shop' CHECK (profile IN ('shop', 'finance')),
    locale                 text NOT NULL DEFAULT 'es',
    timezone               text NOT NULL DEFAULT 'America/La_Paz',
    currency               char(3) NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    session_timeout_secs   integer NOT NULL DEFAULT 1800 CHECK (session_timeout_secs > 0),
    payment_timeout_secs   integer NOT NULL DEFAULT 86400 CHECK (payment_timeout_secs > 0),
    agent_enabled          boolean NOT NULL DEFAULT true,
    payment_instructions   text NOT NULL DEFAULT '',
    -- Per-bot counter so customers see small order numbers (#1, #2, ...).
    last_order_number      bigint NOT NULL DEFAULT 0,
    created_at             timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX bots_merchant_idx ON bots (merchant_id);

CREATE TABLE contacts (
    id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    bot_id        uuid NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    channel       text NOT NULL CHECK (channel IN ('webchat', 'telegram', 'whatsapp')),
    external_id   text NOT NULL,
    display_name  text,
    blocked       boolean NOT NULL DEFAULT false,
    created_at    timestamptz NOT NULL DEFAULT now(),
    UNIQUE (bot_id, channel, external_id)
);

CREATE TABLE conversations (
    id                     uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    bot_id                 uuid NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    contact_id             uuid NOT NULL UNIQUE REFERENCES contacts (id) ON DELETE CASCADE,
    fsm_state              text NOT NULL DEFAULT 'IDLE' CHECK (fsm_state IN
                             ('IDLE', 'BROWSING', 'CART_OPEN', 'CHECKOUT', 'AWAITING_PAYMENT',
                              'COMPLETED', 'HUMAN_TAKEOVER')),
    human_override         boolean NOT NULL DEFAULT false,
    override_at            timestamptz,
    override_by            text,
    state_before_takeover  text,
    draft                  jsonb,
    -- Compare-and-set counter: every committed turn or merchant change bumps it.
    version                bigint NOT NULL DEFAULT 0,
    lease_owner            uuid,
    lease_until            timestamptz,
    last_customer_at       timestamptz,
    last_activity_at       timestamptz NOT NULL DEFAULT now(),
    created_at             timestamptz NOT NULL DEFAULT now(),
    updated_at             timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX conversations_bot_state_idx ON conversations (bot_id, fsm_state);
CREATE INDEX conversations_timeout_idx ON conversations (last_activity_at)
    WHERE fsm_state IN ('BROWSING', 'CART_OPEN', 'CHECKOUT') AND NOT human_override;

CREATE TABLE products (
    id           bigserial PRIMARY KEY,
    bot_id       uuid NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    sku          text NOT NULL,
    name         text NOT NULL,
    description  text NOT NULL DEFAULT '',
    price_minor  bigint NOT NULL CHECK (price_minor >= 0),
    currency     char(3) NOT NULL,
    active       boolean NOT NULL DEFAULT true,
    created_at   timestamptz NOT NULL DEFAULT now(),
    UNIQUE (bot_id, sku)
);

CREATE TABLE cart_items (
    conversation_id  uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    product_id       bigint NOT NULL REFERENCES products (id),
    quantity         integer NOT NULL CHECK (quantity BETWEEN 1 AND 100),
    position         integer NOT NULL,
    PRIMARY KEY (conversation_id, product_id)
);

CREATE TABLE orders (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    bot_id           uuid NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    number           bigint NOT NULL,
    conversation_id  uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    status           text NOT NULL CHECK (status IN
                       ('awaiting_payment', 'proof_received', 'paid', 'cancelled', 'expired')),
    total_minor      bigint NOT NULL CHECK (total_minor >= 0),
    currency         char(3) NOT NULL,
    payment_due_at   timestamptz NOT NULL,
    rejection_reason text,
    created_at       timestamptz NOT NULL DEFAULT now(),
    paid_at          timestamptz,
    closed_at        timestamptz,
    UNIQUE (bot_id, number)
);
CREATE INDEX orders_conversation_idx ON orders (conversation_id, created_at DESC);
CREATE INDEX orders_due_idx ON orders (payment_due_at)
    WHERE status IN ('awaiting_payment', 'proof_received');

-- Name and price are copied at confirmation: later catalog edits never change an order.
CREATE TABLE order_items (
    order_id          uuid NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
    product_id        bigint NOT NULL REFERENCES products (id),
    name              text NOT NULL,
    unit_price_minor  bigint NOT NULL CHECK (unit_price_minor >= 0),
    quantity          integer NOT NULL CHECK (quantity BETWEEN 1 AND 100),
    line_total_minor  bigint NOT NULL,
    position          integer NOT NULL,
    PRIMARY KEY (order_id, product_id)
);

-- The durable inbound queue. (bot_id, external_id) is the exactly-once key.
CREATE TABLE inbox (
    id               bigserial PRIMARY KEY,
    bot_id           uuid NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    conversation_id  uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    external_id      text NOT NULL,
    kind             text NOT NULL CHECK (kind IN ('message', 'session_timeout', 'payment_timeout')),
    payload          jsonb NOT NULL,
    status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'parked')),
    attempts         integer NOT NULL DEFAULT 0,
    available_at     timestamptz NOT NULL DEFAULT now(),
    last_error       text,
    received_at      timestamptz NOT NULL DEFAULT now(),
    processed_at     timestamptz,
    UNIQUE (bot_id, external_id)
);
CREATE INDEX inbox_pending_idx ON inbox (conversation_id, id) WHERE status = 'pending';

CREATE TABLE payment_proofs (
    id           bigserial PRIMARY KEY,
    order_id     uuid NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
    inbox_id     bigint NOT NULL UNIQUE REFERENCES inbox (id) ON DELETE CASCADE,
    media        jsonb,
    text         text NOT NULL DEFAULT '',
    created_at   timestamptz NOT NULL DEFAULT now()
);

-- The outbound queue; delivered in id order per conversation.
CREATE TABLE outbox (
    id               bigserial PRIMARY KEY,
    conversation_id  uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    bot_id           uuid NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    channel          text NOT NULL,
    recipient        text NOT NULL,
    -- 'bot' rows are suppressed under human override; 'system' (handoff notices)
    -- and 'human' rows are not.
    author           text NOT NULL CHECK (author IN ('bot', 'system', 'human')),
    payload          jsonb NOT NULL,
    status           text NOT NULL DEFAULT 'pending' CHECK (status IN
                       ('pending', 'sending', 'sent', 'suppressed', 'failed', 'dead')),
    attempts         integer NOT NULL DEFAULT 0,
    next_attempt_at  timestamptz NOT NULL DEFAULT now(),
    lease_until      timestamptz,
    last_error       text,
    inbox_id         bigint REFERENCES inbox (id) ON DELETE SET NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    sent_at          timestamptz
);
CREATE INDEX outbox_pending_idx ON outbox (next_attempt_at, id) WHERE status IN ('pending', 'sending');
CREATE INDEX outbox_conversation_idx ON outbox (conversation_id, id);

-- The transcript, as the merchant reads it.
CREATE TABLE messages (
    id               bigserial PRIMARY KEY,
    conversation_id  uuid NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    direction        text NOT NULL CHECK (direction IN ('in', 'out')),
    author           text NOT NULL CHECK (author IN ('customer', 'bot', 'system', 'human')),
    text             text NOT NULL,
    inbox_id         bigint REFERENCES inbox (id) ON DELETE SET NULL,
    outbox_id        bigint REFERENCES outbox (id) ON DELETE SET NULL,
    created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX messages_conversation_idx ON messages (conversation_id, id);

CREATE TABLE audit_log (
    id               bigserial PRIMARY KEY,
    bot_id           uuid NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    conversation_id  uuid REFERENCES conversations (id) ON DELETE CASCADE,
    inbox_id         bigint REFERENCES inbox (id) ON DELETE SET NULL,
    actor            text NOT NULL,
    kind             text NOT NULL,
    action           text,
    from_state       text,
    to_state         text,
    reason           text,
    detail           jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_conversation_idx ON audit_log (conversation_id, id);

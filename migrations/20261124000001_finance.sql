-- The finance profile (DESIGN §4): its conversation states, the user's ledger,
-- budgets, debts, bank balance and what the bot learns from corrections. Every
-- finance row belongs to one user of one bot (a contact), and every query is
-- scoped by it. Money is bigint cents. Forward-only: never edit once landed.

-- CLARIFYING: a draft with open questions; AWAITING_CONFIRMATION: a pending write.
ALTER TABLE conversations DROP CONSTRAINT conversations_fsm_state_check;
ALTER TABLE conversations ADD CONSTRAINT conversations_fsm_state_check CHECK (fsm_state IN
    ('IDLE', 'BROWSING', 'CART_OPEN', 'CHECKOUT', 'AWAITING_PAYMENT', 'COMPLETED',
     'CLARIFYING', 'AWAITING_CONFIRMATION', 'HUMAN_TAKEOVER'));

-- A draft left open expires like a cart does, so a "sí" days later confirms nothing.
DROP INDEX conversations_timeout_idx;
CREATE INDEX conversations_timeout_idx ON conversations (last_activity_at)
    WHERE fsm_state IN ('BROWSING', 'CART_OPEN', 'CHECKOUT', 'CLARIFYING', 'AWAITING_CONFIRMATION')
      AND NOT human_override;

-- Demo bots: every new user starts with a few months of sample history.
ALTER TABLE bots ADD COLUMN sample_history boolean NOT NULL DEFAULT false;

CREATE TABLE fin_transactions (
    id             bigserial PRIMARY KEY,
    bot_id         uuid NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    contact_id     uuid NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
    kind           text NOT NULL CHECK (kind IN ('expense', 'income')),
    amount_cents   bigint NOT NULL CHECK (amount_cents > 0),
    currency       char(3) NOT NULL,
    category       text NOT NULL,
    category_type  text NOT NULL CHECK (category_type IN
                     ('supervivencia', 'opcional', 'cultura', 'extra', 'ingreso')),
    description    text NOT NULL DEFAULT '',
    -- Normalized merchant name, the key of learned category rules.
    merchant       text,
    occurred_on    date NOT NULL,
    source         text NOT NULL DEFAULT 'chat' CHECK (source IN ('chat', 'sample')),
    -- The confirmation that wrote it: one write per confirming event.
    inbox_id       bigint UNIQUE REFERENCES inbox (id) ON DELETE SET NULL,
    created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX fin_transactions_user_idx ON fin_transactions (contact_id, occurred_on);

-- A monthly cap from `starts_on` (first of a month) until a later row replaces it.
-- `category` '' is the cap on all variable spending.
CREATE TABLE fin_budgets (
    bot_id        uuid NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    contact_id    uuid NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
    category      text NOT NULL DEFAULT '',
    starts_on     date NOT NULL CHECK (extract(day FROM starts_on) = 1),
    cap_cents     bigint NOT NULL CHECK (cap_cents > 0),
    inbox_id      bigint REFERENCES inbox (id) ON DELETE SET NULL,
    updated_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (contact_id, category, starts_on)
);

CREATE TABLE fin_debts (
    id                     bigserial PRIMARY KEY,
    bot_id                 uuid NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    contact_id             uuid NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
    name                   text NOT NULL,
    -- Normalized name: "Juan", "juan" and "JUÁN" are one debt.
    name_key               text NOT NULL,
    balance_cents          bigint NOT NULL CHECK (balance_cents >= 0),
    minimum_payment_cents  bigint CHECK (minimum_payment_cents >= 0),
    due_day                smallint CHECK (due_day BETWEEN 1 AND 31),
    created_at             timestamptz NOT NULL DEFAULT now(),
    updated_at             timestamptz NOT NULL DEFAULT now(),
    UNIQUE (contact_id, name_key)
);

-- Bank balance as the user stated it; the newest row is the current one. Cash
-- available is this balance only.
CREATE TABLE fin_balances (
    id             bigserial PRIMARY KEY,
    bot_id         uuid NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    contact_id     uuid NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
    balance_cents  bigint NOT NULL CHECK (balance_cents >= 0),
    inbox_id       bigint REFERENCES inbox (id) ON DELETE SET NULL,
    created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX fin_balances_user_idx ON fin_balances (contact_id, id DESC);

-- Every category a user corrected, for few-shot examples and learning metrics.
CREATE TABLE fin_corrections (
    id              bigserial PRIMARY KEY,
    bot_id          uuid NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    contact_id      uuid NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
    transaction_id  bigint NOT NULL REFERENCES fin_transactions (id) ON DELETE CASCADE,
    merchant        text,
    description     text NOT NULL,
    from_category   text NOT NULL,
    to_category     text NOT NULL,
    inbox_id        bigint REFERENCES inbox (id) ON DELETE SET NULL,
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX fin_corrections_user_idx ON fin_corrections (contact_id, id DESC);
CREATE INDEX fin_corrections_bot_idx ON fin_corrections (bot_id);

-- Merchant -> category, learned from repeated corrections of one user.
CREATE TABLE fin_merchant_rules (
    bot_id         uuid NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    contact_id     uuid NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
    merchant       text NOT NULL,
    category       text NOT NULL,
    corrections    integer NOT NULL CHECK (corrections > 0),
    applied        integer NOT NULL DEFAULT 0,
    learned_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (contact_id, merchant)
);
CREATE INDEX fin_merchant_rules_bot_idx ON fin_merchant_rules (bot_id);

-- Money owed to the person (lent, or a share of a bill they paid): whom, and
-- how much. Kept apart from their own debts, which have payment days and
-- reminders; one row per person named (normalized, as debts).
CREATE TABLE fin_receivables (
    id             bigserial,
    bot_id         uuid NOT NULL,
    contact_id     uuid NOT NULL,
    name           text NOT NULL,
    name_key       text NOT NULL,
    balance_cents  bigint NOT NULL CHECK (balance_cents >= 0),
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (id, bot_id),
    CONSTRAINT fin_receivables_bot_contact_name_key UNIQUE (bot_id, contact_id, name_key),
    FOREIGN KEY (bot_id, contact_id) REFERENCES contacts (bot_id, id) ON DELETE CASCADE
);

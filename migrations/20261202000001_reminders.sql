-- Reminders a finance bot sends on its own: one a person asked for («recuérdame
-- pagar la tarjeta el 20»), the day before a debt's payment day, and a budget
-- crossing 80 % or 100 % in a month. Each is sent once: the sweeper of any
-- replica claims a due row and queues its message in one transaction, and the
-- dedupe key keeps a debt's month or a budget's threshold from being scheduled
-- twice.
CREATE TABLE fin_reminders (
    id               bigserial NOT NULL,
    bot_id           uuid NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    contact_id       uuid NOT NULL,
    conversation_id  uuid NOT NULL,
    kind             text NOT NULL CHECK (kind IN ('custom', 'debt', 'budget')),
    what             text NOT NULL CHECK (length(what) BETWEEN 1 AND 200),
    due_on           date NOT NULL,
    send_at          timestamptz NOT NULL,
    status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'cancelled')),
    dedupe_key       text NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    sent_at          timestamptz,
    PRIMARY KEY (id, bot_id),
    CONSTRAINT fin_reminders_once UNIQUE (bot_id, contact_id, dedupe_key),
    FOREIGN KEY (bot_id, contact_id) REFERENCES contacts (bot_id, id) ON DELETE CASCADE,
    FOREIGN KEY (bot_id, conversation_id) REFERENCES conversations (bot_id, id) ON DELETE CASCADE
);
CREATE INDEX fin_reminders_due ON fin_reminders (send_at) WHERE status = 'pending';

-- The approved WhatsApp template a reminder goes as outside the 24-hour window
-- (body parameter: what to remember and when); none: such a reminder waits.
ALTER TABLE bots ADD COLUMN whatsapp_reminder_template text;

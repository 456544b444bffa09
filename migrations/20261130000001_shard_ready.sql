-- Ready to shard by bot (Citus, distributed by `bot_id`; README, "When one
-- PostgreSQL is not enough"). Every tenant table carries `bot_id`; every primary
-- and unique key of such a table includes it; every foreign key between them
-- includes it on both sides, so the rows of one bot always live on one node.
-- Merchants, bots, their channels, API keys, console sessions and idempotency
-- records are small, read everywhere and become reference tables.
--
-- Primary keys put `id` first so a lookup by id alone keeps using the index.
-- A foreign key whose parent row may go while the child stays (an inbox row
-- gone under an outbox row) clears only its own column: `SET NULL (col)`.
-- Forward-only.

-- 1. The four child tables that did not carry the bot get it from their parent.
ALTER TABLE cart_items ADD COLUMN bot_id uuid;
UPDATE cart_items ci SET bot_id = c.bot_id FROM conversations c WHERE c.id = ci.conversation_id;
ALTER TABLE cart_items ALTER COLUMN bot_id SET NOT NULL;

ALTER TABLE order_items ADD COLUMN bot_id uuid;
UPDATE order_items i SET bot_id = o.bot_id FROM orders o WHERE o.id = i.order_id;
ALTER TABLE order_items ALTER COLUMN bot_id SET NOT NULL;

ALTER TABLE payment_proofs ADD COLUMN bot_id uuid;
UPDATE payment_proofs p SET bot_id = o.bot_id FROM orders o WHERE o.id = p.order_id;
ALTER TABLE payment_proofs ALTER COLUMN bot_id SET NOT NULL;

ALTER TABLE messages ADD COLUMN bot_id uuid;
UPDATE messages m SET bot_id = c.bot_id FROM conversations c WHERE c.id = m.conversation_id;
ALTER TABLE messages ALTER COLUMN bot_id SET NOT NULL;

-- 2. Foreign keys between tenant tables go first (they hang on the old keys).
ALTER TABLE conversations    DROP CONSTRAINT conversations_contact_id_fkey;
ALTER TABLE cart_items       DROP CONSTRAINT cart_items_conversation_id_fkey,
                             DROP CONSTRAINT cart_items_product_id_fkey;
ALTER TABLE orders           DROP CONSTRAINT orders_conversation_id_fkey;
ALTER TABLE order_items      DROP CONSTRAINT order_items_order_id_fkey,
                             DROP CONSTRAINT order_items_product_id_fkey;
ALTER TABLE inbox            DROP CONSTRAINT inbox_conversation_id_fkey;
ALTER TABLE payment_proofs   DROP CONSTRAINT payment_proofs_order_id_fkey,
                             DROP CONSTRAINT payment_proofs_inbox_id_fkey;
ALTER TABLE outbox           DROP CONSTRAINT outbox_conversation_id_fkey,
                             DROP CONSTRAINT outbox_inbox_id_fkey;
ALTER TABLE messages         DROP CONSTRAINT messages_conversation_id_fkey,
                             DROP CONSTRAINT messages_inbox_id_fkey,
                             DROP CONSTRAINT messages_outbox_id_fkey;
ALTER TABLE audit_log        DROP CONSTRAINT audit_log_conversation_id_fkey,
                             DROP CONSTRAINT audit_log_inbox_id_fkey;
ALTER TABLE llm_calls        DROP CONSTRAINT llm_calls_conversation_id_fkey,
                             DROP CONSTRAINT llm_calls_inbox_id_fkey;
ALTER TABLE fin_transactions DROP CONSTRAINT fin_transactions_inbox_id_fkey,
                             DROP CONSTRAINT fin_transactions_contact_id_fkey;
ALTER TABLE fin_budgets      DROP CONSTRAINT fin_budgets_inbox_id_fkey,
                             DROP CONSTRAINT fin_budgets_contact_id_fkey;
ALTER TABLE fin_debts        DROP CONSTRAINT fin_debts_contact_id_fkey;
ALTER TABLE fin_balances     DROP CONSTRAINT fin_balances_contact_id_fkey,
                             DROP CONSTRAINT fin_balances_inbox_id_fkey;
ALTER TABLE fin_corrections  DROP CONSTRAINT fin_corrections_transaction_id_fkey,
                             DROP CONSTRAINT fin_corrections_contact_id_fkey,
                             DROP CONSTRAINT fin_corrections_inbox_id_fkey;
ALTER TABLE fin_merchant_rules DROP CONSTRAINT fin_merchant_rules_contact_id_fkey;
ALTER TABLE conversation_notes DROP CONSTRAINT conversation_notes_conversation_id_fkey;
ALTER TABLE conversation_reads DROP CONSTRAINT conversation_reads_conversation_id_fkey;

-- 3. Primary and unique keys include the bot.
ALTER TABLE contacts         DROP CONSTRAINT contacts_pkey, ADD PRIMARY KEY (id, bot_id);
ALTER TABLE conversations    DROP CONSTRAINT conversations_pkey, ADD PRIMARY KEY (id, bot_id),
                             DROP CONSTRAINT conversations_contact_id_key,
                             ADD CONSTRAINT conversations_bot_contact_key UNIQUE (bot_id, contact_id);
ALTER TABLE products         DROP CONSTRAINT products_pkey, ADD PRIMARY KEY (id, bot_id);
ALTER TABLE cart_items       DROP CONSTRAINT cart_items_pkey,
                             ADD PRIMARY KEY (conversation_id, product_id, bot_id);
ALTER TABLE orders           DROP CONSTRAINT orders_pkey, ADD PRIMARY KEY (id, bot_id);
ALTER TABLE order_items      DROP CONSTRAINT order_items_pkey,
                             ADD PRIMARY KEY (order_id, product_id, bot_id);
ALTER TABLE inbox            DROP CONSTRAINT inbox_pkey, ADD PRIMARY KEY (id, bot_id);
ALTER TABLE payment_proofs   DROP CONSTRAINT payment_proofs_pkey, ADD PRIMARY KEY (id, bot_id),
                             DROP CONSTRAINT payment_proofs_inbox_id_key,
                             ADD CONSTRAINT payment_proofs_bot_inbox_key UNIQUE (bot_id, inbox_id);
ALTER TABLE outbox           DROP CONSTRAINT outbox_pkey, ADD PRIMARY KEY (id, bot_id);
ALTER TABLE messages         DROP CONSTRAINT messages_pkey, ADD PRIMARY KEY (id, bot_id);
ALTER TABLE audit_log        DROP CONSTRAINT audit_log_pkey, ADD PRIMARY KEY (id, bot_id);
ALTER TABLE llm_calls        DROP CONSTRAINT llm_calls_pkey, ADD PRIMARY KEY (id, bot_id);
ALTER TABLE fin_transactions DROP CONSTRAINT fin_transactions_pkey, ADD PRIMARY KEY (id, bot_id),
                             DROP CONSTRAINT fin_transactions_inbox_id_key,
                             ADD CONSTRAINT fin_transactions_bot_inbox_key UNIQUE (bot_id, inbox_id);
ALTER TABLE fin_budgets      DROP CONSTRAINT fin_budgets_pkey,
                             ADD PRIMARY KEY (contact_id, category, starts_on, bot_id);
ALTER TABLE fin_debts        DROP CONSTRAINT fin_debts_pkey, ADD PRIMARY KEY (id, bot_id),
                             DROP CONSTRAINT fin_debts_contact_id_name_key_key,
                             ADD CONSTRAINT fin_debts_bot_contact_name_key UNIQUE (bot_id, contact_id, name_key);
ALTER TABLE fin_balances     DROP CONSTRAINT fin_balances_pkey, ADD PRIMARY KEY (id, bot_id);
ALTER TABLE fin_corrections  DROP CONSTRAINT fin_corrections_pkey, ADD PRIMARY KEY (id, bot_id);
ALTER TABLE fin_merchant_rules DROP CONSTRAINT fin_merchant_rules_pkey,
                             ADD PRIMARY KEY (contact_id, merchant, bot_id);
ALTER TABLE delivery_zones   DROP CONSTRAINT delivery_zones_pkey, ADD PRIMARY KEY (id, bot_id);
ALTER TABLE conversation_notes DROP CONSTRAINT conversation_notes_pkey, ADD PRIMARY KEY (id, bot_id);
ALTER TABLE canned_replies   DROP CONSTRAINT canned_replies_pkey, ADD PRIMARY KEY (id, bot_id);
ALTER TABLE conversation_reads DROP CONSTRAINT conversation_reads_pkey,
                             ADD PRIMARY KEY (conversation_id, bot_id);

-- 4. Foreign keys again, each naming the bot on both sides.
ALTER TABLE cart_items ADD FOREIGN KEY (bot_id) REFERENCES bots (id) ON DELETE CASCADE;
ALTER TABLE order_items ADD FOREIGN KEY (bot_id) REFERENCES bots (id) ON DELETE CASCADE;
ALTER TABLE payment_proofs ADD FOREIGN KEY (bot_id) REFERENCES bots (id) ON DELETE CASCADE;
ALTER TABLE messages ADD FOREIGN KEY (bot_id) REFERENCES bots (id) ON DELETE CASCADE;

ALTER TABLE conversations ADD FOREIGN KEY (bot_id, contact_id)
    REFERENCES contacts (bot_id, id) ON DELETE CASCADE;
ALTER TABLE cart_items
    ADD FOREIGN KEY (bot_id, conversation_id) REFERENCES conversations (bot_id, id) ON DELETE CASCADE,
    ADD FOREIGN KEY (bot_id, product_id) REFERENCES products (bot_id, id);
ALTER TABLE orders ADD FOREIGN KEY (bot_id, conversation_id)
    REFERENCES conversations (bot_id, id) ON DELETE CASCADE;
ALTER TABLE order_items
    ADD FOREIGN KEY (bot_id, order_id) REFERENCES orders (bot_id, id) ON DELETE CASCADE,
    ADD FOREIGN KEY (bot_id, product_id) REFERENCES products (bot_id, id);
ALTER TABLE inbox ADD FOREIGN KEY (bot_id, conversation_id)
    REFERENCES conversations (bot_id, id) ON DELETE CASCADE;
ALTER TABLE payment_proofs
    ADD FOREIGN KEY (bot_id, order_id) REFERENCES orders (bot_id, id) ON DELETE CASCADE,
    ADD FOREIGN KEY (bot_id, inbox_id) REFERENCES inbox (bot_id, id) ON DELETE CASCADE;
ALTER TABLE outbox
    ADD FOREIGN KEY (bot_id, conversation_id) REFERENCES conversations (bot_id, id) ON DELETE CASCADE,
    ADD FOREIGN KEY (bot_id, inbox_id) REFERENCES inbox (bot_id, id) ON DELETE SET NULL (inbox_id);
ALTER TABLE messages
    ADD FOREIGN KEY (bot_id, conversation_id) REFERENCES conversations (bot_id, id) ON DELETE CASCADE,
    ADD FOREIGN KEY (bot_id, inbox_id) REFERENCES inbox (bot_id, id) ON DELETE SET NULL (inbox_id),
    ADD FOREIGN KEY (bot_id, outbox_id) REFERENCES outbox (bot_id, id) ON DELETE SET NULL (outbox_id);
ALTER TABLE audit_log
    ADD FOREIGN KEY (bot_id, conversation_id) REFERENCES conversations (bot_id, id) ON DELETE CASCADE,
    ADD FOREIGN KEY (bot_id, inbox_id) REFERENCES inbox (bot_id, id) ON DELETE SET NULL (inbox_id);
ALTER TABLE llm_calls
    ADD FOREIGN KEY (bot_id, conversation_id) REFERENCES conversations (bot_id, id)
        ON DELETE SET NULL (conversation_id),
    ADD FOREIGN KEY (bot_id, inbox_id) REFERENCES inbox (bot_id, id) ON DELETE SET NULL (inbox_id);
ALTER TABLE fin_transactions
    ADD FOREIGN KEY (bot_id, inbox_id) REFERENCES inbox (bot_id, id) ON DELETE SET NULL (inbox_id),
    ADD FOREIGN KEY (bot_id, contact_id) REFERENCES contacts (bot_id, id) ON DELETE CASCADE;
ALTER TABLE fin_budgets
    ADD FOREIGN KEY (bot_id, inbox_id) REFERENCES inbox (bot_id, id) ON DELETE SET NULL (inbox_id),
    ADD FOREIGN KEY (bot_id, contact_id) REFERENCES contacts (bot_id, id) ON DELETE CASCADE;
ALTER TABLE fin_debts ADD FOREIGN KEY (bot_id, contact_id)
    REFERENCES contacts (bot_id, id) ON DELETE CASCADE;
ALTER TABLE fin_balances
    ADD FOREIGN KEY (bot_id, contact_id) REFERENCES contacts (bot_id, id) ON DELETE CASCADE,
    ADD FOREIGN KEY (bot_id, inbox_id) REFERENCES inbox (bot_id, id) ON DELETE SET NULL (inbox_id);
ALTER TABLE fin_corrections
    ADD FOREIGN KEY (bot_id, transaction_id) REFERENCES fin_transactions (bot_id, id) ON DELETE CASCADE,
    ADD FOREIGN KEY (bot_id, contact_id) REFERENCES contacts (bot_id, id) ON DELETE CASCADE,
    ADD FOREIGN KEY (bot_id, inbox_id) REFERENCES inbox (bot_id, id) ON DELETE SET NULL (inbox_id);
ALTER TABLE fin_merchant_rules ADD FOREIGN KEY (bot_id, contact_id)
    REFERENCES contacts (bot_id, id) ON DELETE CASCADE;
ALTER TABLE conversation_notes ADD FOREIGN KEY (bot_id, conversation_id)
    REFERENCES conversations (bot_id, id) ON DELETE CASCADE;
ALTER TABLE conversation_reads ADD FOREIGN KEY (bot_id, conversation_id)
    REFERENCES conversations (bot_id, id) ON DELETE CASCADE;

-- 5. The child tables' reads by parent keep an index that leads with the parent.
CREATE INDEX IF NOT EXISTS messages_conversation_idx ON messages (conversation_id, id);
CREATE INDEX IF NOT EXISTS payment_proofs_order_idx ON payment_proofs (order_id);

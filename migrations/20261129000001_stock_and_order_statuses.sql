-- Stock that is never oversold, and orders followed to the door. Forward-only.

-- Units on hand (NULL: not tracked) and units held by orders waiting for their
-- payment. What a customer can still buy is `stock - reserved`.
ALTER TABLE products
    ADD COLUMN stock integer CHECK (stock IS NULL OR stock >= 0),
    ADD COLUMN reserved integer NOT NULL DEFAULT 0 CHECK (reserved >= 0);

-- The merchant's chat is told when a product falls to this many units left
-- (NULL: only when it sells out).
ALTER TABLE bots ADD COLUMN low_stock_threshold integer
    CHECK (low_stock_threshold IS NULL OR low_stock_threshold BETWEEN 1 AND 100000);

-- An approved WhatsApp template for order updates, sent when the customer last
-- wrote more than 24 hours ago (WhatsApp allows no free text then). Its body
-- takes two parameters: the order number and the new status in words.
ALTER TABLE bots
    ADD COLUMN whatsapp_order_template text
        CHECK (whatsapp_order_template IS NULL
               OR (whatsapp_order_template ~ '^[a-z0-9_]+$' AND length(whatsapp_order_template) <= 512)),
    ADD COLUMN whatsapp_template_language text NOT NULL DEFAULT 'es'
        CHECK (whatsapp_template_language ~ '^[a-z]{2,3}(_[A-Z]{2})?$');

-- Where the order's units are: `held` in `products.reserved` from its creation
-- until its payment `consumed` them or its end (cancelled, expired) `returned`
-- them; each move happens once, under the order's row lock. `none`: nothing was
-- counted (untracked products, orders from before stock existed).
ALTER TABLE orders
    ADD COLUMN stock_state text NOT NULL DEFAULT 'none'
        CHECK (stock_state IN ('none', 'held', 'consumed', 'returned')),
    ADD COLUMN cancel_reason text,
    ADD COLUMN status_changed_at timestamptz;

ALTER TABLE orders DROP CONSTRAINT orders_status_check;
ALTER TABLE orders ADD CONSTRAINT orders_status_check CHECK (status IN
    ('awaiting_payment', 'proof_received', 'paid', 'preparing', 'ready', 'on_the_way',
     'delivered', 'cancelled', 'expired'));

-- Stock numbers moving (orders reserving, a merchant counting) are not a
-- catalog change: turns read what is available fresh. Only starting or stopping
-- to track a product's stock, or any other edit, makes running turns reload it.
CREATE OR REPLACE FUNCTION tendero_catalog_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE'
       AND (to_jsonb(NEW) - 'stock' - 'reserved') = (to_jsonb(OLD) - 'stock' - 'reserved')
       AND (NEW.stock IS NULL) = (OLD.stock IS NULL) THEN
        RETURN NULL;
    END IF;
    UPDATE bots SET config_version = config_version + 1
    WHERE id = CASE WHEN TG_OP = 'DELETE' THEN OLD.bot_id ELSE NEW.bot_id END;
    RETURN NULL;
END $$;

-- Pickup or delivery, priced by the backend. Forward-only.

-- What a shop offers: pickup (on by default) and delivery (off until the
-- merchant sets it up with its zones).
ALTER TABLE bots
    ADD COLUMN pickup_enabled boolean NOT NULL DEFAULT true,
    ADD COLUMN delivery_enabled boolean NOT NULL DEFAULT false;

-- Where a shop delivers, each zone with its fee and an optional minimum order.
CREATE TABLE delivery_zones (
    id               bigserial PRIMARY KEY,
    bot_id           uuid NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
    name             text NOT NULL CHECK (length(name) BETWEEN 1 AND 80),
    fee_minor        bigint NOT NULL CHECK (fee_minor >= 0),
    min_order_minor  bigint CHECK (min_order_minor IS NULL OR min_order_minor >= 0),
    position         integer NOT NULL
);
CREATE UNIQUE INDEX delivery_zones_name_idx ON delivery_zones (bot_id, lower(name));

-- A zone changed is a configuration change: running turns reload it.
CREATE FUNCTION tendero_zones_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE bots SET config_version = config_version + 1
    WHERE id = CASE WHEN TG_OP = 'DELETE' THEN OLD.bot_id ELSE NEW.bot_id END;
    RETURN NULL;
END $$;
CREATE TRIGGER delivery_zones_changed AFTER INSERT OR UPDATE OR DELETE ON delivery_zones
    FOR EACH ROW EXECUTE FUNCTION tendero_zones_changed();

-- How the order reaches the customer, as it was when confirmed: the zone's
-- name and fee are copied, like names and prices. `total_minor` includes the fee.
ALTER TABLE orders
    ADD COLUMN fulfilment text CHECK (fulfilment IN ('pickup', 'delivery')),
    ADD COLUMN delivery_zone text,
    ADD COLUMN delivery_address text CHECK (length(delivery_address) <= 300),
    ADD COLUMN delivery_fee_minor bigint NOT NULL DEFAULT 0 CHECK (delivery_fee_minor >= 0);

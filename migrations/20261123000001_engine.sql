-- The turn engine keeps each bot and its catalog in memory. This counter tells a
-- turn that its copy is stale, whichever replica, API call or tool changed the bot
-- or a product. Forward-only: never edit once landed.
ALTER TABLE bots ADD COLUMN config_version bigint NOT NULL DEFAULT 0;

-- Order numbering also updates the bot row; it is not a configuration change.
CREATE FUNCTION tendero_bot_config_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF (to_jsonb(NEW) - 'last_order_number' - 'config_version')
       IS DISTINCT FROM (to_jsonb(OLD) - 'last_order_number' - 'config_version') THEN
        NEW.config_version := OLD.config_version + 1;
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER bots_config_version BEFORE UPDATE ON bots
    FOR EACH ROW EXECUTE FUNCTION tendero_bot_config_version();

CREATE FUNCTION tendero_catalog_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE bots SET config_version = config_version + 1
    WHERE id = CASE WHEN TG_OP = 'DELETE' THEN OLD.bot_id ELSE NEW.bot_id END;
    RETURN NULL;
END $$;
CREATE TRIGGER products_catalog_changed AFTER INSERT OR UPDATE OR DELETE ON products
    FOR EACH ROW EXECUTE FUNCTION tendero_catalog_changed();

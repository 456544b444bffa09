-- A key created in the console waits here, sealed, for the one page that shows
-- it (after the redirect that follows the POST, so a reload creates nothing
-- and the key is never in a URL). Forward-only.
ALTER TABLE dashboard_sessions ADD COLUMN new_key_sealed text;

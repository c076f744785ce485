-- Two more epochs beside the credentials' (0013), renewed in the transaction
-- of each change by the triggers below, so every replica sees the change at
-- its next commit horizon and keeps what it read while they stay:
-- `settings`, by any write to the site options (the core's and the
-- packages'); `webhooks`, by the changes of subscriptions that decide which
-- events they get (made, deleted, switched, disabled, their topics). A
-- delivery's outcome on a subscription (failing_since, modified) leaves it,
-- unless it disables the subscription.
-- Each value is the id of the last transaction that changed its kind (never
-- a value seen before: see 0013). Other migration sets renew epochs of
-- their own with the same function (`cms_renew_epoch('<name>')`).
INSERT INTO "cms_epochs" ("name", "value") VALUES ('settings', txid_current()), ('webhooks', txid_current()) ON CONFLICT DO NOTHING;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION cms_renew_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE cms_epochs SET value = txid_current() WHERE name = TG_ARGV[0];
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER options_settings_epoch AFTER INSERT OR DELETE OR UPDATE ON options
  FOR EACH STATEMENT EXECUTE FUNCTION cms_renew_epoch('settings');
--> statement-breakpoint
CREATE TRIGGER options_settings_epoch_truncate AFTER TRUNCATE ON options
  FOR EACH STATEMENT EXECUTE FUNCTION cms_renew_epoch('settings');
--> statement-breakpoint
CREATE TRIGGER webhooks_epoch AFTER INSERT OR DELETE ON webhooks
  FOR EACH STATEMENT EXECUTE FUNCTION cms_renew_epoch('webhooks');
--> statement-breakpoint
-- Per row, only when one of these changed: a failed delivery's update (which may set disabled_at) leaves it otherwise.
CREATE TRIGGER webhooks_epoch_update AFTER UPDATE ON webhooks FOR EACH ROW
  WHEN (OLD.events IS DISTINCT FROM NEW.events OR OLD.active IS DISTINCT FROM NEW.active
    OR OLD.disabled_at IS DISTINCT FROM NEW.disabled_at OR OLD.created IS DISTINCT FROM NEW.created)
  EXECUTE FUNCTION cms_renew_epoch('webhooks');
--> statement-breakpoint
CREATE TRIGGER webhooks_epoch_truncate AFTER TRUNCATE ON webhooks
  FOR EACH STATEMENT EXECUTE FUNCTION cms_renew_epoch('webhooks');

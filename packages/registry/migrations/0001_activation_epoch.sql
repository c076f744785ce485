-- The activation epoch (beside the core's in `cms_epochs`, core migrations
-- 0013 and 0014): renewed in the transaction of every change of a package's
-- status and of every operation recorded (an install, upgrade or delete
-- records one after its files are in place), so every replica re-reads the
-- statuses at its next commit horizon and keeps them while it stays,
-- whatever else is committed (registry.ts, `activeNow`).
INSERT INTO "cms_epochs" ("name", "value") VALUES ('activation', txid_current()) ON CONFLICT DO NOTHING;
--> statement-breakpoint
CREATE TRIGGER registry_packages_activation_epoch AFTER INSERT OR DELETE OR UPDATE ON registry_packages
  FOR EACH STATEMENT EXECUTE FUNCTION cms_renew_epoch('activation');
--> statement-breakpoint
CREATE TRIGGER registry_packages_activation_epoch_truncate AFTER TRUNCATE ON registry_packages
  FOR EACH STATEMENT EXECUTE FUNCTION cms_renew_epoch('activation');
--> statement-breakpoint
CREATE TRIGGER registry_operations_activation_epoch AFTER INSERT ON registry_operations
  FOR EACH STATEMENT EXECUTE FUNCTION cms_renew_epoch('activation');

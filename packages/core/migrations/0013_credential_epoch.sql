CREATE TABLE "cms_epochs" (
	"name" text PRIMARY KEY NOT NULL,
	"value" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
-- The credentials epoch advances in the transaction of every change that can
-- alter who a presented credential is (a login, an e-mail address, roles, a
-- user made or deleted; an application password made, deleted or changed, or
-- its use recorded, at most daily): the store reads it with the commit horizon,
-- and the service keeps credential rows while it stays. Editing a profile or
-- anything else leaves it. Its value is the id of the last
-- transaction that changed them: never a value seen before, even on a database
-- made again on the same server (a counter would start over at a value a
-- running service may still hold).
INSERT INTO "cms_epochs" ("name", "value") VALUES ('credentials', txid_current()) ON CONFLICT DO NOTHING;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION cms_credentials_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE cms_epochs SET value = txid_current() WHERE name = 'credentials';
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER users_credentials_epoch AFTER INSERT OR DELETE OR UPDATE OF login, email, roles ON users
  FOR EACH STATEMENT EXECUTE FUNCTION cms_credentials_epoch();
--> statement-breakpoint
CREATE TRIGGER application_passwords_credentials_epoch AFTER INSERT OR DELETE OR UPDATE OF uuid, user_id, hash, last_used ON application_passwords
  FOR EACH STATEMENT EXECUTE FUNCTION cms_credentials_epoch();
--> statement-breakpoint
CREATE TRIGGER users_credentials_epoch_truncate AFTER TRUNCATE ON users
  FOR EACH STATEMENT EXECUTE FUNCTION cms_credentials_epoch();
--> statement-breakpoint
CREATE TRIGGER application_passwords_credentials_epoch_truncate AFTER TRUNCATE ON application_passwords
  FOR EACH STATEMENT EXECUTE FUNCTION cms_credentials_epoch();

CREATE TABLE "audit_outbox" (
	"key" uuid PRIMARY KEY NOT NULL,
	"at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"entry" jsonb NOT NULL
);
--> statement-breakpoint
-- Append-only: a row is never changed, and leaves only by being moved into audit_log, which the
-- move says for its own transaction (set_config('cms.audit_move', 'on', true): audit/outbox.ts).
CREATE OR REPLACE FUNCTION cms_audit_outbox_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('cms.audit_move', true) = 'on' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'audit_outbox is append-only: % refused', TG_OP USING HINT = 'rows leave only by being moved into audit_log';
END
$$;
--> statement-breakpoint
CREATE TRIGGER cms_audit_outbox_append_only BEFORE UPDATE OR DELETE ON audit_outbox FOR EACH ROW EXECUTE FUNCTION cms_audit_outbox_append_only();
--> statement-breakpoint
CREATE TRIGGER cms_audit_outbox_no_truncate BEFORE TRUNCATE ON audit_outbox FOR EACH STATEMENT EXECUTE FUNCTION cms_audit_outbox_append_only();

CREATE TABLE "audit_log" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"at" timestamp (3) with time zone NOT NULL,
	"user_id" integer DEFAULT 0 NOT NULL,
	"credential" text NOT NULL,
	"credential_id" text,
	"ip" text DEFAULT '' NOT NULL,
	"method" text NOT NULL,
	"route" text NOT NULL,
	"path" text NOT NULL,
	"object_type" text DEFAULT '' NOT NULL,
	"object_id" text,
	"status" integer NOT NULL,
	"error_code" text,
	"fields" text[] DEFAULT '{}'::text[] NOT NULL,
	"values" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
CREATE INDEX "audit_log_at_idx" ON "audit_log" USING btree ("at");--> statement-breakpoint
CREATE INDEX "audit_log_user_at_idx" ON "audit_log" USING btree ("user_id","at");--> statement-breakpoint
CREATE INDEX "audit_log_object_at_idx" ON "audit_log" USING btree ("object_type","object_id","at");--> statement-breakpoint
CREATE INDEX "audit_log_route_at_idx" ON "audit_log" USING btree ("route","at");--> statement-breakpoint
-- Append-only: an entry is never changed, and leaves only through the retention prune, which
-- says so for its own transaction (set_config('cms.audit_prune', 'on', true): audit/store.ts).
CREATE OR REPLACE FUNCTION cms_audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('cms.audit_prune', true) = 'on' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP USING HINT = 'entries leave only through the retention prune';
END
$$;
--> statement-breakpoint
CREATE TRIGGER cms_audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION cms_audit_log_append_only();
--> statement-breakpoint
CREATE TRIGGER cms_audit_log_no_truncate BEFORE TRUNCATE ON audit_log FOR EACH STATEMENT EXECUTE FUNCTION cms_audit_log_append_only();

CREATE TABLE "comment_meta" (
	"comment_id" integer NOT NULL,
	"key" text NOT NULL,
	"value" jsonb NOT NULL,
	CONSTRAINT "comment_meta_comment_id_key_pk" PRIMARY KEY("comment_id","key")
);
--> statement-breakpoint
CREATE TABLE "comments" (
	"id" serial PRIMARY KEY NOT NULL,
	"post_id" integer,
	"parent" integer DEFAULT 0 NOT NULL,
	"user_id" integer DEFAULT 0 NOT NULL,
	"author_name" text DEFAULT '' NOT NULL,
	"author_email" text DEFAULT '' NOT NULL,
	"author_url" text DEFAULT '' NOT NULL,
	"author_ip" text DEFAULT '' NOT NULL,
	"author_agent" text DEFAULT '' NOT NULL,
	"date_gmt" timestamp (0) with time zone NOT NULL,
	"content" text DEFAULT '' NOT NULL,
	"status" text DEFAULT 'hold' NOT NULL,
	"previous_status" text,
	"type" text DEFAULT 'comment' NOT NULL
);
--> statement-breakpoint
ALTER TABLE "comment_meta" ADD CONSTRAINT "comment_meta_comment_id_comments_id_fk" FOREIGN KEY ("comment_id") REFERENCES "public"."comments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comments" ADD CONSTRAINT "comments_post_id_posts_id_fk" FOREIGN KEY ("post_id") REFERENCES "public"."posts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "comments_post_status_date_idx" ON "comments" USING btree ("post_id","status","date_gmt");--> statement-breakpoint
CREATE INDEX "comments_status_date_idx" ON "comments" USING btree ("status","date_gmt");--> statement-breakpoint
CREATE INDEX "comments_parent_idx" ON "comments" USING btree ("parent");--> statement-breakpoint
CREATE INDEX "comments_user_idx" ON "comments" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "comments_ip_date_idx" ON "comments" USING btree ("author_ip","date_gmt");--> statement-breakpoint
CREATE INDEX "comments_post_content_idx" ON "comments" USING btree ("post_id",md5("content"));--> statement-breakpoint
-- Comment lifecycle events, written in the changing transaction as the post
-- events are (0007): created, then approved, spammed or trashed when the
-- status becomes that, and deleted. One event per topic and comment per
-- transaction.
CREATE OR REPLACE FUNCTION cms_comment_events() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  tx bigint := txid_current();
  event_topic text;
BEGIN
  IF TG_OP = 'DELETE' THEN
    INSERT INTO cms_events (topic, object_id, payload, txid)
    VALUES ('comment.deleted', OLD.id, jsonb_build_object('id', OLD.id, 'post', OLD.post_id, 'parent', OLD.parent, 'status', OLD.status, 'author', OLD.user_id), tx)
    ON CONFLICT (txid, topic, object_id) DO NOTHING;
    RETURN OLD;
  END IF;
  IF TG_OP = 'INSERT' THEN
    INSERT INTO cms_events (topic, object_id, payload, txid)
    VALUES ('comment.created', NEW.id, jsonb_build_object('id', NEW.id, 'post', NEW.post_id, 'parent', NEW.parent, 'status', NEW.status, 'author', NEW.user_id), tx)
    ON CONFLICT (txid, topic, object_id) DO NOTHING;
    RETURN NEW;
  END IF;
  IF NEW.status IS NOT DISTINCT FROM OLD.status THEN
    RETURN NEW;
  END IF;
  event_topic := CASE NEW.status WHEN 'approved' THEN 'comment.approved' WHEN 'spam' THEN 'comment.spammed' WHEN 'trash' THEN 'comment.trashed' ELSE NULL END;
  IF event_topic IS NOT NULL THEN
    INSERT INTO cms_events (topic, object_id, payload, txid)
    VALUES (event_topic, NEW.id, jsonb_build_object('id', NEW.id, 'post', NEW.post_id, 'parent', NEW.parent, 'from', OLD.status, 'author', NEW.user_id), tx)
    ON CONFLICT (txid, topic, object_id) DO NOTHING;
  END IF;
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER cms_comment_events AFTER INSERT OR UPDATE OR DELETE ON comments FOR EACH ROW EXECUTE FUNCTION cms_comment_events();

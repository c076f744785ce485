CREATE TABLE "cms_event_deliveries" (
	"event_id" bigint NOT NULL,
	"listener" text NOT NULL,
	"delivered" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "cms_event_deliveries_event_id_listener_pk" PRIMARY KEY("event_id","listener")
);
--> statement-breakpoint
CREATE TABLE "cms_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"topic" text NOT NULL,
	"object_id" bigint NOT NULL,
	"payload" jsonb NOT NULL,
	"txid" bigint DEFAULT txid_current() NOT NULL,
	"created" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_until" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "cms_event_deliveries" ADD CONSTRAINT "cms_event_deliveries_event_id_cms_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."cms_events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "cms_events_once" ON "cms_events" USING btree ("txid","topic","object_id");--> statement-breakpoint
CREATE INDEX "cms_events_created" ON "cms_events" USING btree ("created");--> statement-breakpoint
-- Lifecycle events, written in the transaction of the change itself (so an
-- event exists exactly when its change committed), whatever wrote it: a
-- route, the scheduler, the command line. One event per topic and object per
-- transaction (a create followed by a rename in the same transaction is one
-- post.created; a second status change keeps the first `from`). Revisions
-- and autosaves are not posts of their own here.
CREATE OR REPLACE FUNCTION cms_post_events() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  tx bigint := txid_current();
BEGIN
  IF TG_OP = 'DELETE' THEN
    IF OLD.type <> 'revision' THEN
      INSERT INTO cms_events (topic, object_id, payload, txid)
      VALUES ('post.deleted', OLD.id, jsonb_build_object('id', OLD.id, 'type', OLD.type, 'status', OLD.status, 'author', OLD.author), tx)
      ON CONFLICT (txid, topic, object_id) DO NOTHING;
    END IF;
    RETURN OLD;
  END IF;
  IF NEW.type = 'revision' THEN
    RETURN NEW;
  END IF;
  IF TG_OP = 'INSERT' THEN
    INSERT INTO cms_events (topic, object_id, payload, txid)
    VALUES ('post.created', NEW.id, jsonb_build_object('id', NEW.id, 'type', NEW.type, 'status', NEW.status, 'author', NEW.author), tx)
    ON CONFLICT (txid, topic, object_id) DO NOTHING;
    RETURN NEW;
  END IF;
  -- An update in the transaction that created the post is part of its creation.
  IF EXISTS (SELECT 1 FROM cms_events WHERE txid = tx AND topic = 'post.created' AND object_id = NEW.id) THEN
    UPDATE cms_events SET payload = payload || jsonb_build_object('status', NEW.status)
    WHERE txid = tx AND topic = 'post.created' AND object_id = NEW.id;
    RETURN NEW;
  END IF;
  INSERT INTO cms_events (topic, object_id, payload, txid)
  VALUES ('post.updated', NEW.id, jsonb_build_object('id', NEW.id, 'type', NEW.type, 'status', NEW.status, 'author', NEW.author), tx)
  ON CONFLICT (txid, topic, object_id) DO UPDATE SET payload = cms_events.payload || jsonb_build_object('status', NEW.status);
  IF NEW.status IS DISTINCT FROM OLD.status THEN
    INSERT INTO cms_events (topic, object_id, payload, txid)
    VALUES ('post.status_changed', NEW.id, jsonb_build_object('id', NEW.id, 'type', NEW.type, 'from', OLD.status, 'to', NEW.status, 'author', NEW.author), tx)
    ON CONFLICT (txid, topic, object_id) DO UPDATE SET payload = cms_events.payload || jsonb_build_object('to', NEW.status);
    IF NEW.status = 'trash' THEN
      INSERT INTO cms_events (topic, object_id, payload, txid)
      VALUES ('post.trashed', NEW.id, jsonb_build_object('id', NEW.id, 'type', NEW.type, 'from', OLD.status, 'author', NEW.author), tx)
      ON CONFLICT (txid, topic, object_id) DO NOTHING;
    END IF;
  END IF;
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER cms_post_events AFTER INSERT OR UPDATE OR DELETE ON posts FOR EACH ROW EXECUTE FUNCTION cms_post_events();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION cms_user_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO cms_events (topic, object_id, payload)
  VALUES ('user.deleted', OLD.id, jsonb_build_object('id', OLD.id, 'login', OLD.login))
  ON CONFLICT (txid, topic, object_id) DO NOTHING;
  RETURN OLD;
END
$$;
--> statement-breakpoint
CREATE TRIGGER cms_user_events AFTER DELETE ON users FOR EACH ROW EXECUTE FUNCTION cms_user_events();

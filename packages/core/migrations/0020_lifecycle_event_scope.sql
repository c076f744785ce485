DROP INDEX "cms_events_once";--> statement-breakpoint
ALTER TABLE "cms_events" ADD COLUMN "scope" text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "cms_events_once" ON "cms_events" USING btree ("txid","scope","topic","object_id");--> statement-breakpoint
-- Lifecycle events per batch item (issue 35). A batch's post writes share one transaction, each
-- item behind a savepoint that also sets `cms.event_scope` to the item's number (transaction-local,
-- so undone with the savepoint and gone at the end: @cms/store's joined.ts). The rules of 0007 and
-- 0008 (one event per topic and object; an update in the creation is part of it; a second status
-- change keeps the first `from`) now hold per transaction and scope: two updates of one post in
-- one batch are two post.updated, a create then an update post.created then post.updated, as the
-- same requests sent one by one. Without the setting (every other transaction, and a gateway from
-- before this migration during a rolling upgrade) the scope is '' and the events are those of
-- before. `current_setting(.., true)` is null where the setting was never set and '' on a
-- connection where a transaction set it before: both are ''.
CREATE OR REPLACE FUNCTION cms_post_events() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  tx bigint := txid_current();
  sc text := coalesce(current_setting('cms.event_scope', true), '');
BEGIN
  IF TG_OP = 'DELETE' THEN
    IF OLD.type <> 'revision' THEN
      INSERT INTO cms_events (topic, object_id, payload, txid, scope)
      VALUES ('post.deleted', OLD.id, jsonb_build_object('id', OLD.id, 'type', OLD.type, 'status', OLD.status, 'author', OLD.author), tx, sc)
      ON CONFLICT (txid, scope, topic, object_id) DO NOTHING;
    END IF;
    RETURN OLD;
  END IF;
  IF NEW.type = 'revision' THEN
    RETURN NEW;
  END IF;
  IF TG_OP = 'INSERT' THEN
    INSERT INTO cms_events (topic, object_id, payload, txid, scope)
    VALUES ('post.created', NEW.id, jsonb_build_object('id', NEW.id, 'type', NEW.type, 'status', NEW.status, 'author', NEW.author), tx, sc)
    ON CONFLICT (txid, scope, topic, object_id) DO NOTHING;
    RETURN NEW;
  END IF;
  -- An update in the transaction (and scope) that created the post is part of its creation.
  UPDATE cms_events SET payload = payload || jsonb_build_object('status', NEW.status)
  WHERE txid = tx AND scope = sc AND topic = 'post.created' AND object_id = NEW.id;
  IF FOUND THEN
    RETURN NEW;
  END IF;
  INSERT INTO cms_events (topic, object_id, payload, txid, scope)
  VALUES ('post.updated', NEW.id, jsonb_build_object('id', NEW.id, 'type', NEW.type, 'status', NEW.status, 'author', NEW.author), tx, sc)
  ON CONFLICT (txid, scope, topic, object_id) DO UPDATE SET payload = cms_events.payload || jsonb_build_object('status', NEW.status);
  IF NEW.status IS DISTINCT FROM OLD.status THEN
    INSERT INTO cms_events (topic, object_id, payload, txid, scope)
    VALUES ('post.status_changed', NEW.id, jsonb_build_object('id', NEW.id, 'type', NEW.type, 'from', OLD.status, 'to', NEW.status, 'author', NEW.author), tx, sc)
    ON CONFLICT (txid, scope, topic, object_id) DO UPDATE SET payload = cms_events.payload || jsonb_build_object('to', NEW.status);
    IF NEW.status = 'trash' THEN
      INSERT INTO cms_events (topic, object_id, payload, txid, scope)
      VALUES ('post.trashed', NEW.id, jsonb_build_object('id', NEW.id, 'type', NEW.type, 'from', OLD.status, 'author', NEW.author), tx, sc)
      ON CONFLICT (txid, scope, topic, object_id) DO NOTHING;
    END IF;
  END IF;
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION cms_user_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO cms_events (topic, object_id, payload, scope)
  VALUES ('user.deleted', OLD.id, jsonb_build_object('id', OLD.id, 'login', OLD.login), coalesce(current_setting('cms.event_scope', true), ''))
  ON CONFLICT (txid, scope, topic, object_id) DO NOTHING;
  RETURN OLD;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION cms_comment_events() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  tx bigint := txid_current();
  sc text := coalesce(current_setting('cms.event_scope', true), '');
  event_topic text;
BEGIN
  IF TG_OP = 'DELETE' THEN
    INSERT INTO cms_events (topic, object_id, payload, txid, scope)
    VALUES ('comment.deleted', OLD.id, jsonb_build_object('id', OLD.id, 'post', OLD.post_id, 'parent', OLD.parent, 'status', OLD.status, 'author', OLD.user_id), tx, sc)
    ON CONFLICT (txid, scope, topic, object_id) DO NOTHING;
    RETURN OLD;
  END IF;
  IF TG_OP = 'INSERT' THEN
    INSERT INTO cms_events (topic, object_id, payload, txid, scope)
    VALUES ('comment.created', NEW.id, jsonb_build_object('id', NEW.id, 'post', NEW.post_id, 'parent', NEW.parent, 'status', NEW.status, 'author', NEW.user_id), tx, sc)
    ON CONFLICT (txid, scope, topic, object_id) DO NOTHING;
    RETURN NEW;
  END IF;
  IF NEW.status IS NOT DISTINCT FROM OLD.status THEN
    RETURN NEW;
  END IF;
  event_topic := CASE NEW.status WHEN 'approved' THEN 'comment.approved' WHEN 'spam' THEN 'comment.spammed' WHEN 'trash' THEN 'comment.trashed' ELSE NULL END;
  IF event_topic IS NOT NULL THEN
    INSERT INTO cms_events (topic, object_id, payload, txid, scope)
    VALUES (event_topic, NEW.id, jsonb_build_object('id', NEW.id, 'post', NEW.post_id, 'parent', NEW.parent, 'from', OLD.status, 'author', NEW.user_id), tx, sc)
    ON CONFLICT (txid, scope, topic, object_id) DO NOTHING;
  END IF;
  RETURN NEW;
END
$$;

-- A new post, its terms and their counts in one statement. On its own it is
-- its own transaction, so the usual create (its slug known before its id, no
-- meta) needs no begin and commit round trips; creates that need more call it
-- inside their transaction. With check_slug the slug's lock is taken first
-- and the uniqueness check is a later statement of the function (each takes
-- a new snapshot), so it sees every writer that held the lock before; this
-- is the same lock, on the same key, that every other slug write takes.
-- The id is the row's own when it has one (not 0), else the next of the
-- sequence; the guid is guid_prefix followed by the id.
-- Answers null when the slug is taken (the caller then finds the next free
-- suffix), else the id and the post's terms with their counts, ordered as a
-- read orders them.
CREATE OR REPLACE FUNCTION cms_insert_post(
  post jsonb, lock_class int, check_slug boolean, hierarchical boolean, term_ids int[], fallback_category int, guid_prefix text
) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  r posts;
  added int[];
BEGIN
  r := jsonb_populate_record(NULL::posts, post);
  IF check_slug THEN
    PERFORM pg_advisory_xact_lock(lock_class, hashtext(r.type || ':' || r.slug));
    IF EXISTS (SELECT 1 FROM posts o WHERE o.type = r.type AND o.slug = r.slug AND (NOT hierarchical OR o.parent = r.parent)) THEN
      RETURN NULL;
    END IF;
  END IF;
  IF coalesce(r.id, 0) = 0 THEN
    r.id := nextval(pg_get_serial_sequence('posts', 'id'));
  END IF;
  r.guid := guid_prefix || r.id;
  INSERT INTO posts SELECT r.*;
  IF term_ids IS NULL THEN
    RETURN jsonb_build_object('id', r.id, 'terms', '[]'::jsonb);
  END IF;
  WITH ins AS (
    INSERT INTO term_relationships (post_id, term_id)
    SELECT r.id, t.id FROM terms t
    WHERE t.id = ANY(term_ids) OR (t.taxonomy = 'category' AND t.id = fallback_category)
    ON CONFLICT DO NOTHING
    RETURNING term_id
  )
  SELECT coalesce(array_agg(term_id), '{}') INTO added FROM ins;
  -- Counted by adding one: a recount reads every post of the term.
  IF r.status = 'publish' AND r.type = 'post' THEN
    UPDATE terms SET count = count + 1 WHERE id = ANY(added);
  END IF;
  RETURN jsonb_build_object('id', r.id, 'terms', coalesce((
    SELECT jsonb_agg(jsonb_build_object('id', t.id, 'taxonomy', t.taxonomy, 'name', t.name, 'slug', t.slug,
      'description', t.description, 'parent', t.parent, 'count', t.count) ORDER BY t.name, t.id)
    FROM terms t WHERE t.id = ANY(added)), '[]'::jsonb));
END
$$;

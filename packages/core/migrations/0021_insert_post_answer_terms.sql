-- As in 0017, but the answer's terms are what a post's answer shows of them (issue 35): the id, the
-- taxonomy (categories or tags), the slug (the class list) and the name (their order), read with
-- the insert of the relationships in one statement. The answer carried each term's count, its
-- pending changes summed by a probe of term_count_deltas per term (one scan of that table a term,
-- whose dead rows a burst of creates leaves until vacuum), and the description and parent: no
-- create's answer shows them (formatPost: the ids and the class list; the counts are the term
-- routes'), so they are no longer read.
CREATE OR REPLACE FUNCTION cms_insert_post(
  post jsonb, lock_class int, check_slug boolean, hierarchical boolean, term_ids int[], fallback_category int, guid_prefix text
) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  r posts;
  added int[];
  answered jsonb;
  base text;
  free text;
  first int := 2;
  size int := 1;
BEGIN
  r := jsonb_populate_record(NULL::posts, post);
  IF check_slug THEN
    base := r.slug;
    PERFORM pg_advisory_xact_lock(lock_class, hashtext(r.type || ':' || base));
    IF base IN ('feed', 'rdf', 'rss', 'rss2', 'atom', 'embed') OR (hierarchical AND base ~ '^(page)?[0-9]+$')
      OR EXISTS (SELECT 1 FROM posts o WHERE o.type = r.type AND o.slug = base AND (NOT hierarchical OR o.parent = r.parent)) THEN
      LOOP
        SELECT c.slug INTO free
        FROM (SELECT s.n, cms_suffixed_slug(base, s.n) AS slug FROM generate_series(first, first + size - 1) AS s(n)) c
        WHERE NOT EXISTS (SELECT 1 FROM posts o WHERE o.type = r.type AND o.slug = c.slug AND (NOT hierarchical OR o.parent = r.parent))
        ORDER BY c.n LIMIT 1;
        EXIT WHEN free IS NOT NULL;
        first := first + size;
        size := CASE WHEN size = 1 THEN 16 ELSE least(size * 2, 1024) END;
      END LOOP;
      r.slug := free;
    END IF;
  END IF;
  IF coalesce(r.id, 0) = 0 THEN
    r.id := nextval(pg_get_serial_sequence('posts', 'id'));
  END IF;
  r.guid := guid_prefix || r.id;
  INSERT INTO posts SELECT r.*;
  IF term_ids IS NULL THEN
    RETURN jsonb_build_object('id', r.id, 'slug', r.slug, 'terms', '[]'::jsonb);
  END IF;
  WITH ins AS (
    INSERT INTO term_relationships (post_id, term_id)
    SELECT r.id, t.id FROM terms t
    WHERE t.id = ANY(term_ids) OR (t.taxonomy = 'category' AND t.id = fallback_category)
    ON CONFLICT DO NOTHING
    RETURNING term_id
  )
  SELECT coalesce(array_agg(t.id), '{}'),
    coalesce(jsonb_agg(jsonb_build_object('id', t.id, 'taxonomy', t.taxonomy, 'name', t.name, 'slug', t.slug) ORDER BY t.name, t.id), '[]'::jsonb)
  INTO added, answered
  FROM ins JOIN terms t ON t.id = ins.term_id;
  -- Counted by adding one: a recount reads every post of the term.
  IF r.status = 'publish' AND r.type = 'post' AND cardinality(added) > 0 THEN
    PERFORM cms_add_term_counts(added, array_fill(1, ARRAY[cardinality(added)]));
  END IF;
  RETURN jsonb_build_object('id', r.id, 'slug', r.slug, 'terms', answered);
END
$$;

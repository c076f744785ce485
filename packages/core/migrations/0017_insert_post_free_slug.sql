-- `slug` with the suffix `-n`, cut (as truncateSlug in src/text/slugs.ts) so that the whole fits in
-- 200 characters without splitting a `%xx` escape and without dashes before the suffix.
CREATE OR REPLACE FUNCTION cms_suffixed_slug(slug text, n int) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  room int := 200 - (length(n::text) + 1);
  cut text := slug;
  escape int;
BEGIN
  IF length(slug) > room THEN
    cut := left(slug, room);
    IF strpos(cut, '%') > 0 THEN
      escape := length(cut) - strpos(reverse(cut), '%') + 1;
      IF escape > length(cut) - 2 THEN
        cut := left(cut, escape - 1);
      END IF;
    END IF;
    cut := regexp_replace(cut, '-+$', '');
  END IF;
  RETURN cut || '-' || n;
END
$$;
--> statement-breakpoint
-- As in 0016, but with check_slug a slug that is taken or reserved is given the first free suffix
-- here, under the slug's lock, as uniquePostSlug (src/content/post-store.ts) gives it: `-2`, `-3`...
-- (no other post of the type with it; pages: no sibling under the same parent), the reserved words
-- of isReservedSlug (src/text/slugs.ts) avoided. So a taken slug costs no second transaction; the
-- answer carries the slug written. Candidates are read by the batch (1, 16, 32... up to 1,024 at
-- a time), one indexed probe each.
CREATE OR REPLACE FUNCTION cms_insert_post(
  post jsonb, lock_class int, check_slug boolean, hierarchical boolean, term_ids int[], fallback_category int, guid_prefix text
) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  r posts;
  added int[];
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
  SELECT coalesce(array_agg(term_id), '{}') INTO added FROM ins;
  -- Counted by adding one: a recount reads every post of the term.
  IF r.status = 'publish' AND r.type = 'post' AND cardinality(added) > 0 THEN
    PERFORM cms_add_term_counts(added, array_fill(1, ARRAY[cardinality(added)]));
  END IF;
  RETURN jsonb_build_object('id', r.id, 'slug', r.slug, 'terms', coalesce((
    SELECT jsonb_agg(jsonb_build_object('id', t.id, 'taxonomy', t.taxonomy, 'name', t.name, 'slug', t.slug,
      'description', t.description, 'parent', t.parent,
      'count', t.count + coalesce((SELECT sum(d.delta)::int FROM term_count_deltas d WHERE d.term_id = t.id), 0)) ORDER BY t.name, t.id)
    FROM terms t WHERE t.id = ANY(added)), '[]'::jsonb));
END
$$;

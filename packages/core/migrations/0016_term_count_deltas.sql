CREATE TABLE "term_count_deltas" (
	"term_id" integer NOT NULL,
	"delta" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "term_count_deltas" ADD CONSTRAINT "term_count_deltas_term_id_terms_id_fk" FOREIGN KEY ("term_id") REFERENCES "public"."terms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "term_count_deltas_term_idx" ON "term_count_deltas" USING btree ("term_id");--> statement-breakpoint
-- Adds incs[i] to the count of the term ids[i] (a term given twice: the sum) without waiting for
-- another writer of its count. A term's count is `terms.count` plus the sum of its rows in
-- term_count_deltas. The writer that gets the term's count lock (an advisory lock of class
-- 0x636e7473 keyed by the term's id, tried, never waited for, held until commit) adds to
-- `terms.count` and folds in the rows committed so far (moved in one statement: a reader sees
-- them in the row or in the rows, never both); a writer that finds it held by a transaction in
-- flight adds a row instead. So concurrent creates in one category no longer commit one after
-- another on the term row's lock (issue 35): only the lock's holder writes the row.
CREATE OR REPLACE FUNCTION cms_add_term_counts(ids int[], incs int[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  mine int[];
  mine_incs int[];
  others int[];
  others_incs int[];
BEGIN
  WITH c AS (
    SELECT u.id, sum(u.inc)::int AS inc FROM unnest(ids, incs) AS u(id, inc) GROUP BY u.id HAVING sum(u.inc) <> 0
  ), l AS MATERIALIZED (
    SELECT c.id, c.inc, pg_try_advisory_xact_lock(1668183155, c.id) AS got FROM c ORDER BY c.id
  )
  SELECT array_agg(l.id) FILTER (WHERE l.got), array_agg(l.inc) FILTER (WHERE l.got),
    array_agg(l.id) FILTER (WHERE NOT l.got), array_agg(l.inc) FILTER (WHERE NOT l.got)
  INTO mine, mine_incs, others, others_incs FROM l;
  IF mine IS NOT NULL THEN
    WITH gone AS (
      DELETE FROM term_count_deltas d WHERE d.term_id = ANY(mine) RETURNING d.term_id, d.delta
    ), folded AS (
      SELECT g.term_id, sum(g.delta)::int AS delta FROM gone g GROUP BY g.term_id
    )
    UPDATE terms t SET count = t.count + m.inc + coalesce(f.delta, 0)
    FROM unnest(mine, mine_incs) AS m(id, inc) LEFT JOIN folded f ON f.term_id = m.id
    WHERE t.id = m.id;
  END IF;
  IF others IS NOT NULL THEN
    INSERT INTO term_count_deltas (term_id, delta) SELECT o.id, o.inc FROM unnest(others, others_incs) AS o(id, inc);
  END IF;
END
$$;
--> statement-breakpoint
-- A term's count made the number of published posts that carry it, by adding the difference
-- (cms_add_term_counts): computed in one statement, so the posts and the counts it compares are
-- of one snapshot, and what it adds is this transaction's own change, whatever other writers in
-- flight add meanwhile.
CREATE OR REPLACE FUNCTION cms_recount_terms(ids int[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  fix_ids int[];
  fixes int[];
BEGIN
  SELECT array_agg(t.id), array_agg(n.published - t.count - coalesce(d.delta, 0))
  INTO fix_ids, fixes
  FROM terms t
  CROSS JOIN LATERAL (
    SELECT count(*)::int AS published FROM term_relationships tr JOIN posts p ON p.id = tr.post_id
    WHERE tr.term_id = t.id AND p.status = 'publish' AND p.type = 'post'
  ) n
  LEFT JOIN LATERAL (SELECT sum(x.delta)::int AS delta FROM term_count_deltas x WHERE x.term_id = t.id) d ON true
  WHERE t.id = ANY(ids) AND n.published <> t.count + coalesce(d.delta, 0);
  IF fix_ids IS NOT NULL THEN
    PERFORM cms_add_term_counts(fix_ids, fixes);
  END IF;
END
$$;
--> statement-breakpoint
-- As in 0006, but the counts added by cms_add_term_counts, and the answer's counts with the
-- changes not yet folded in.
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
  IF r.status = 'publish' AND r.type = 'post' AND cardinality(added) > 0 THEN
    PERFORM cms_add_term_counts(added, array_fill(1, ARRAY[cardinality(added)]));
  END IF;
  RETURN jsonb_build_object('id', r.id, 'terms', coalesce((
    SELECT jsonb_agg(jsonb_build_object('id', t.id, 'taxonomy', t.taxonomy, 'name', t.name, 'slug', t.slug,
      'description', t.description, 'parent', t.parent,
      'count', t.count + coalesce((SELECT sum(d.delta)::int FROM term_count_deltas d WHERE d.term_id = t.id), 0)) ORDER BY t.name, t.id)
    FROM terms t WHERE t.id = ANY(added)), '[]'::jsonb));
END
$$;

-- The holder of a term's count deletes the changes it folds in by a plain index scan, not a bitmap
-- scan (issue 35). A folded change is a dead row until vacuum, whose naptime is a minute: under a
-- burst of creates in one category the fold's bitmap scan walked every dead row's index entry
-- again on each fold (about 2,600 in `bench:profile --scenario create`, 10 connections), since a
-- bitmap scan marks none. A plain index scan marks the entries of rows dead to every transaction
-- as it passes them (btree's killed items): the next fold skips them, and the index reclaims
-- their space as it fills (a scan by an array of keys marks none: the fold goes a term at a
-- time). The fold is one function for both of its callers (the holder in
-- cms_add_term_counts, a writer as it commits in cms_fold_term_count), its plan chosen once a
-- connection with neither a bitmap nor a sequential scan (its settings are its own: a plan made
-- afresh on each call cost more than the scan it saves). A term's row is written only when its
-- count changes (as the commit's fold did; the holder always wrote it before).
CREATE OR REPLACE FUNCTION cms_fold_term_changes(ids int[], incs int[]) RETURNS void LANGUAGE plpgsql
  SET cms.term_counts = 'add' SET enable_bitmapscan = off SET enable_seqscan = off SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  -- A term at a time: btree marks no entry dead in a scan by an array of keys (`= ANY`), only by one.
  FOR i IN 1 .. coalesce(cardinality(ids), 0) LOOP
    WITH gone AS (
      DELETE FROM term_count_deltas d WHERE d.term_id = ids[i] RETURNING d.delta
    )
    UPDATE terms t SET count = t.count + g.delta FROM (SELECT incs[i] + coalesce(sum(gone.delta), 0)::int AS delta FROM gone) g
    WHERE t.id = ids[i] AND g.delta <> 0;
  END LOOP;
END
$$;
--> statement-breakpoint
-- As in 0019, the fold by cms_fold_term_changes.
CREATE OR REPLACE FUNCTION cms_add_term_counts(ids int[], incs int[]) RETURNS void LANGUAGE plpgsql
  SET cms.term_counts = 'add' AS $$
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
    PERFORM cms_fold_term_changes(mine, mine_incs);
  END IF;
  IF others IS NOT NULL THEN
    INSERT INTO term_count_deltas (term_id, delta) SELECT o.id, o.inc FROM unnest(others, others_incs) AS o(id, inc);
  END IF;
END
$$;
--> statement-breakpoint
-- As in 0019, the fold by cms_fold_term_changes.
CREATE OR REPLACE FUNCTION cms_fold_term_count() RETURNS trigger LANGUAGE plpgsql SET cms.term_counts = 'add' AS $$
BEGIN
  IF pg_try_advisory_xact_lock(1668183155, NEW.term_id) THEN
    PERFORM cms_fold_term_changes(ARRAY[NEW.term_id], ARRAY[0]);
  END IF;
  RETURN NULL;
END
$$;

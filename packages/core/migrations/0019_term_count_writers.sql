-- Changes to a term's count (term_count_deltas, 0016) are folded in by the writer that gets the
-- term's count lock. A writer that found it taken and left a change now tries it once more as it
-- commits (a deferred trigger, run just before the commit): when the lock's holder has ended
-- meanwhile, as it mostly has, this writer folds the term's committed changes and its own into
-- `terms.count` then, so that they rarely outlast a burst of creates (before, they waited for the
-- term's next writer, and every count read until then added them up: issue 35). Tried, never
-- waited for: a writer still never waits for another's count; holding the lock, it is the term
-- row's only writer.
CREATE OR REPLACE FUNCTION cms_fold_term_count() RETURNS trigger LANGUAGE plpgsql SET cms.term_counts = 'add' AS $$
BEGIN
  IF pg_try_advisory_xact_lock(1668183155, NEW.term_id) THEN
    WITH gone AS (
      DELETE FROM term_count_deltas d WHERE d.term_id = NEW.term_id RETURNING d.delta
    )
    UPDATE terms t SET count = t.count + g.delta FROM (SELECT sum(gone.delta)::int AS delta FROM gone) g
    WHERE t.id = NEW.term_id AND g.delta <> 0;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER term_count_deltas_fold AFTER INSERT ON term_count_deltas
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION cms_fold_term_count();
--> statement-breakpoint
-- A rolling upgrade from before 0016: a gateway of that version recounts a term by writing its
-- whole count into `terms.count` (`count = (select count(*) ... published)`), while this version's
-- count is the row plus the changes pending in term_count_deltas: such a write with changes
-- pending would count them twice. It is refused (the old gateway's request fails, its transaction
-- rolled back) while the term has changes pending, which the fold above makes rare; without any,
-- it is the count. This version's writers of the column (cms_add_term_counts and the fold) run
-- with the setting cms.term_counts = 'add' and are not checked: the WHEN condition is evaluated
-- as the row is written, without a call, and an AFTER trigger takes no further lock on the row.
ALTER FUNCTION cms_add_term_counts(int[], int[]) SET cms.term_counts = 'add';
--> statement-breakpoint
CREATE OR REPLACE FUNCTION cms_term_count_written() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM term_count_deltas d WHERE d.term_id = NEW.id) THEN
    RAISE EXCEPTION 'terms.count of term % written whole while changes to it are pending in term_count_deltas (a writer from before core migration 0016: upgrade it)', NEW.id
      USING ERRCODE = 'object_not_in_prerequisite_state';
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER terms_count_written AFTER UPDATE OF count ON terms FOR EACH ROW
  WHEN (current_setting('cms.term_counts', true) IS DISTINCT FROM 'add')
  EXECUTE FUNCTION cms_term_count_written();

-- A change to a term's count (term_count_deltas, 0016) is written without a foreign-key check on
-- the term (issue 35). Each change row ran one: a `SELECT ... FOR KEY SHARE` of the term's row,
-- which is the busiest row of a burst of creates in one category (every create's relationship
-- locks it, the holder of its count updates it), its lock merged into the row's multixact. The
-- writers of a change have the term in hand: a create's relationship to it (whose own key check
-- holds the row until commit), or a recount that read it (cms_recount_terms). What the key's
-- ON DELETE CASCADE did, a trigger on terms does: a term's changes go with it.
ALTER TABLE "term_count_deltas" DROP CONSTRAINT "term_count_deltas_term_id_terms_id_fk";
--> statement-breakpoint
CREATE OR REPLACE FUNCTION cms_term_deltas_gone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM term_count_deltas d USING gone g WHERE d.term_id = g.id;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER terms_deltas_gone AFTER DELETE ON terms REFERENCING OLD TABLE AS gone
  FOR EACH STATEMENT EXECUTE FUNCTION cms_term_deltas_gone();

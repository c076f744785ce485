ALTER TABLE "seo_indexables" ADD COLUMN "term_ids" bigint[] DEFAULT '{}' NOT NULL;
--> statement-breakpoint
CREATE INDEX "seo_indexables_term_ids" ON "seo_indexables" USING gin ("term_ids");

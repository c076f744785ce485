ALTER TABLE "seo_indexables" ADD COLUMN "term_ids" bigint[] DEFAULT '{}' NOT NULL;
--> statement-breakpoint
CREATE INDEX "seo_indexables_term_ids" ON "seo_indexables" USING gin ("term_ids");
--> statement-breakpoint
CREATE INDEX "seo_indexables_object" ON "seo_indexables" USING btree ("object_type","object_id");
--> statement-breakpoint
CREATE INDEX "seo_indexables_links_due" ON "seo_indexables" USING btree ("object_id") WHERE "link_count" IS NULL;

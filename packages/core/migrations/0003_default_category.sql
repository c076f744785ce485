-- The default post category, id 1 as the default_category option expects.
INSERT INTO "terms" ("id", "taxonomy", "name", "slug", "description", "parent", "count")
VALUES (1, 'category', 'Uncategorized', 'uncategorized', '', 0, 0)
ON CONFLICT DO NOTHING;
--> statement-breakpoint
SELECT setval(pg_get_serial_sequence('terms', 'id'), GREATEST((SELECT max("id") FROM "terms"), 1));

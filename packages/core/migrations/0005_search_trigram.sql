-- Trigram indexes for the posts' `search` (ILIKE '%term%' on title, excerpt
-- and content), so a search does not read every post. They need the pg_trgm
-- extension: PostgreSQL ships it (trusted: the database owner may create it);
-- an embedded database without it keeps working, its searches scan the table.
-- Not declared in schema.ts: drizzle-kit would emit them unconditionally.
DO $$
BEGIN
  CREATE EXTENSION IF NOT EXISTS pg_trgm;
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'pg_trgm is not available (%): post searches will scan the table', SQLERRM;
END
$$;
--> statement-breakpoint
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
    CREATE INDEX IF NOT EXISTS "posts_title_trgm_idx" ON "posts" USING gin ("title" gin_trgm_ops);
    CREATE INDEX IF NOT EXISTS "posts_excerpt_trgm_idx" ON "posts" USING gin ("excerpt" gin_trgm_ops);
    CREATE INDEX IF NOT EXISTS "posts_content_trgm_idx" ON "posts" USING gin ("content" gin_trgm_ops);
  END IF;
END
$$;

CREATE TABLE "oembed_cache" (
	"key" text PRIMARY KEY NOT NULL,
	"url" text NOT NULL,
	"data" jsonb NOT NULL,
	"created" timestamp with time zone DEFAULT now() NOT NULL,
	"expires" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "oembed_cache_expires_idx" ON "oembed_cache" USING btree ("expires");
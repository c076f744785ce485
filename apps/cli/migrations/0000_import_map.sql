CREATE TABLE "import_map" (
	"source" text NOT NULL,
	"kind" text NOT NULL,
	"source_key" text NOT NULL,
	"new_id" integer NOT NULL,
	"checksum" text NOT NULL,
	"source_url" text,
	"new_url" text,
	"pending" jsonb,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "import_map_source_kind_source_key_pk" PRIMARY KEY("source","kind","source_key")
);
--> statement-breakpoint
CREATE INDEX "import_map_url_idx" ON "import_map" USING btree ("source","source_url");

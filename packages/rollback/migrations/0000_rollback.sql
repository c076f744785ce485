CREATE TABLE "rollback_archives" (
	"id" serial PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"slug" text NOT NULL,
	"name" text NOT NULL,
	"version" text NOT NULL,
	"user_id" integer NOT NULL,
	"file" text NOT NULL,
	"file_size" bigint NOT NULL,
	"sha256" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "rollback_archives_slug_idx" ON "rollback_archives" USING btree ("type","slug","version");
--> statement-breakpoint
CREATE TABLE "rollback_state" (
	"type" text NOT NULL,
	"slug" text NOT NULL,
	"version" text NOT NULL,
	"user_id" integer NOT NULL,
	"data" jsonb NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "rollback_state_type_slug_pk" PRIMARY KEY("type","slug")
);

CREATE TABLE "assistant_snippets" (
	"id" serial PRIMARY KEY NOT NULL,
	"title" text NOT NULL,
	"type" text,
	"author" integer NOT NULL,
	"artifact_id" text,
	"version" bigint,
	"dev_rev" integer DEFAULT 0 NOT NULL,
	"prod_rev" integer DEFAULT 0 NOT NULL,
	"dev_modified" timestamp with time zone,
	"prod_modified" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "assistant_snippets_artifact_idx" ON "assistant_snippets" USING btree ("artifact_id");
--> statement-breakpoint
CREATE INDEX "assistant_snippets_title_idx" ON "assistant_snippets" USING btree ("title");
--> statement-breakpoint
CREATE TABLE "assistant_snippet_files" (
	"snippet_id" integer NOT NULL,
	"env" text NOT NULL,
	"name" text NOT NULL,
	"content" bytea NOT NULL,
	"size" integer NOT NULL,
	"modified_at" timestamp with time zone NOT NULL,
	CONSTRAINT "assistant_snippet_files_snippet_id_env_name_pk" PRIMARY KEY("snippet_id","env","name")
);
--> statement-breakpoint
ALTER TABLE "assistant_snippet_files" ADD CONSTRAINT "assistant_snippet_files_snippet_id_assistant_snippets_id_fk" FOREIGN KEY ("snippet_id") REFERENCES "public"."assistant_snippets"("id") ON DELETE cascade ON UPDATE no action;

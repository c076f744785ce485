CREATE TABLE "post_meta" (
	"post_id" integer NOT NULL,
	"key" text NOT NULL,
	"value" jsonb NOT NULL,
	CONSTRAINT "post_meta_post_id_key_pk" PRIMARY KEY("post_id","key")
);
--> statement-breakpoint
CREATE TABLE "posts" (
	"id" serial PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"author" integer DEFAULT 0 NOT NULL,
	"status" text DEFAULT 'draft' NOT NULL,
	"date_gmt" timestamp (0) with time zone,
	"modified_gmt" timestamp (0) with time zone NOT NULL,
	"slug" text DEFAULT '' NOT NULL,
	"title" text DEFAULT '' NOT NULL,
	"content" text DEFAULT '' NOT NULL,
	"excerpt" text DEFAULT '' NOT NULL,
	"password" text DEFAULT '' NOT NULL,
	"parent" integer DEFAULT 0 NOT NULL,
	"menu_order" integer DEFAULT 0 NOT NULL,
	"comment_status" text DEFAULT 'open' NOT NULL,
	"ping_status" text DEFAULT 'open' NOT NULL,
	"format" text DEFAULT 'standard' NOT NULL,
	"sticky" boolean DEFAULT false NOT NULL,
	"template" text DEFAULT '' NOT NULL,
	"featured_media" integer DEFAULT 0 NOT NULL,
	"guid" text DEFAULT '' NOT NULL
);
--> statement-breakpoint
CREATE TABLE "term_relationships" (
	"post_id" integer NOT NULL,
	"term_id" integer NOT NULL,
	CONSTRAINT "term_relationships_post_id_term_id_pk" PRIMARY KEY("post_id","term_id")
);
--> statement-breakpoint
CREATE TABLE "terms" (
	"id" serial PRIMARY KEY NOT NULL,
	"taxonomy" text NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"parent" integer DEFAULT 0 NOT NULL,
	"count" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "post_meta" ADD CONSTRAINT "post_meta_post_id_posts_id_fk" FOREIGN KEY ("post_id") REFERENCES "public"."posts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "term_relationships" ADD CONSTRAINT "term_relationships_post_id_posts_id_fk" FOREIGN KEY ("post_id") REFERENCES "public"."posts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "term_relationships" ADD CONSTRAINT "term_relationships_term_id_terms_id_fk" FOREIGN KEY ("term_id") REFERENCES "public"."terms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "posts_type_status_date_idx" ON "posts" USING btree ("type","status",coalesce("date_gmt", "modified_gmt"));--> statement-breakpoint
CREATE INDEX "posts_type_slug_idx" ON "posts" USING btree ("type","slug");--> statement-breakpoint
CREATE INDEX "posts_parent_type_idx" ON "posts" USING btree ("parent","type");--> statement-breakpoint
CREATE INDEX "posts_author_idx" ON "posts" USING btree ("author");--> statement-breakpoint
CREATE INDEX "posts_future_idx" ON "posts" USING btree ("date_gmt") WHERE "posts"."status" = 'future';--> statement-breakpoint
CREATE INDEX "posts_sticky_idx" ON "posts" USING btree ("type") WHERE "posts"."sticky";--> statement-breakpoint
CREATE INDEX "term_relationships_term_idx" ON "term_relationships" USING btree ("term_id");--> statement-breakpoint
CREATE UNIQUE INDEX "terms_taxonomy_slug_key" ON "terms" USING btree ("taxonomy","slug");--> statement-breakpoint
CREATE INDEX "terms_taxonomy_name_idx" ON "terms" USING btree ("taxonomy","name");--> statement-breakpoint
CREATE INDEX "terms_parent_idx" ON "terms" USING btree ("parent");
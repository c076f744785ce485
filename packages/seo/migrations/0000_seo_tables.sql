CREATE TABLE "seo_analysis" (
	"post_id" bigint PRIMARY KEY NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"input_hash" text DEFAULT '' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text DEFAULT '' NOT NULL,
	"not_before" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_until" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "seo_analysis_due" ON "seo_analysis" USING btree ("state","not_before");
--> statement-breakpoint
CREATE TABLE "seo_indexables" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"object_key" text NOT NULL,
	"object_type" text NOT NULL,
	"object_sub_type" text,
	"object_id" bigint,
	"permalink" text,
	"title" text,
	"description" text,
	"breadcrumb_title" text,
	"primary_focus_keyword" text,
	"primary_focus_keyword_score" integer,
	"readability_score" integer DEFAULT 0 NOT NULL,
	"inclusive_language_score" integer DEFAULT 0 NOT NULL,
	"estimated_reading_time_minutes" integer,
	"is_cornerstone" boolean DEFAULT false NOT NULL,
	"is_robots_noindex" boolean,
	"is_robots_nofollow" boolean DEFAULT false NOT NULL,
	"canonical" text,
	"open_graph_title" text,
	"open_graph_description" text,
	"open_graph_image" text,
	"open_graph_image_id" bigint,
	"twitter_title" text,
	"twitter_description" text,
	"twitter_image" text,
	"twitter_image_id" bigint,
	"link_count" integer,
	"incoming_link_count" integer,
	"post_status" text,
	"is_public" boolean,
	"is_protected" boolean DEFAULT false NOT NULL,
	"author_id" bigint,
	"post_parent" bigint,
	"version" integer DEFAULT 1 NOT NULL,
	"object_last_modified" timestamp with time zone,
	"object_published_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "seo_indexables_object_key" ON "seo_indexables" USING btree ("object_key");
--> statement-breakpoint
CREATE INDEX "seo_indexables_type_status" ON "seo_indexables" USING btree ("object_type","object_sub_type","post_status");
--> statement-breakpoint
CREATE INDEX "seo_indexables_permalink" ON "seo_indexables" USING btree ("permalink");
--> statement-breakpoint
CREATE TABLE "seo_links" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"post_id" bigint NOT NULL,
	"url" text NOT NULL,
	"type" text NOT NULL,
	"target_post_id" bigint
);
--> statement-breakpoint
CREATE INDEX "seo_links_post" ON "seo_links" USING btree ("post_id");
--> statement-breakpoint
CREATE INDEX "seo_links_target" ON "seo_links" USING btree ("target_post_id");

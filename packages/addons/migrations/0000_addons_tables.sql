CREATE TABLE "addons_widgets" (
	"id" serial PRIMARY KEY NOT NULL,
	"title" text NOT NULL,
	"author" integer NOT NULL,
	"version" integer NOT NULL,
	"created" timestamp with time zone DEFAULT now() NOT NULL,
	"modified" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "addons_widget_versions" (
	"widget_id" integer NOT NULL,
	"version" integer NOT NULL,
	"data" jsonb NOT NULL,
	"saved_by" integer NOT NULL,
	"saved" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "addons_widget_versions_widget_id_version_pk" PRIMARY KEY("widget_id","version")
);
--> statement-breakpoint
ALTER TABLE "addons_widget_versions" ADD CONSTRAINT "addons_widget_versions_widget_id_addons_widgets_id_fk" FOREIGN KEY ("widget_id") REFERENCES "public"."addons_widgets"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE TABLE "addons_menus" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	CONSTRAINT "addons_menus_slug_unique" UNIQUE("slug")
);
--> statement-breakpoint
CREATE TABLE "addons_menu_items" (
	"id" serial PRIMARY KEY NOT NULL,
	"menu_id" integer NOT NULL,
	"parent" integer DEFAULT 0 NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	"title" text NOT NULL,
	"url" text DEFAULT '' NOT NULL,
	"object_id" integer DEFAULT 0 NOT NULL,
	"status" text DEFAULT 'publish' NOT NULL,
	"mega_template" integer
);
--> statement-breakpoint
ALTER TABLE "addons_menu_items" ADD CONSTRAINT "addons_menu_items_menu_id_addons_menus_id_fk" FOREIGN KEY ("menu_id") REFERENCES "public"."addons_menus"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "addons_menu_items_menu_idx" ON "addons_menu_items" USING btree ("menu_id","position");

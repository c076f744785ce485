CREATE TABLE "nps_surveys" (
	"plugin_slug" text PRIMARY KEY NOT NULL,
	"dismiss_count" integer DEFAULT 0 NOT NULL,
	"dismiss_permanently" boolean DEFAULT false NOT NULL,
	"dismiss_step" text DEFAULT '' NOT NULL,
	"dismiss_time" integer,
	"dismiss_timespan" integer,
	"rating" integer,
	"comment" text,
	"rated_by" integer
);

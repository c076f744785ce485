CREATE TABLE "builder_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"event_data" jsonb NOT NULL,
	"user_id" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "builder_events_created_at_idx" ON "builder_events" USING btree ("created_at");

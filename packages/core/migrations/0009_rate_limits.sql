CREATE TABLE "rate_limit_hits" (
	"key" text NOT NULL,
	"window_start" bigint NOT NULL,
	"hits" integer NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "rate_limit_hits_key_window_start_pk" PRIMARY KEY("key","window_start")
);
--> statement-breakpoint
CREATE INDEX "rate_limit_hits_expires" ON "rate_limit_hits" USING btree ("expires_at");
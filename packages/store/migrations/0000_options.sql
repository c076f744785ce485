CREATE TABLE "options" (
	"name" text PRIMARY KEY NOT NULL,
	"value" jsonb NOT NULL,
	"autoload" boolean DEFAULT true NOT NULL
);

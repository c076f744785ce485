CREATE TABLE "registry_packages" (
	"type" text NOT NULL,
	"slug" text NOT NULL,
	"status" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "registry_packages_type_slug_pk" PRIMARY KEY("type","slug")
);
--> statement-breakpoint
CREATE TABLE "registry_operations" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"operation" text NOT NULL,
	"type" text NOT NULL,
	"slug" text NOT NULL,
	"from_version" text,
	"to_version" text,
	"outcome" text NOT NULL,
	"message" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "registry_locks" (
	"type" text NOT NULL,
	"slug" text NOT NULL,
	"token" text NOT NULL,
	"operation" text NOT NULL,
	"acquired_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "registry_locks_type_slug_pk" PRIMARY KEY("type","slug")
);

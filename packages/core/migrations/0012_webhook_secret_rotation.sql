ALTER TABLE "webhooks" ADD COLUMN "previous_secret_sealed" text;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "previous_secret_until" timestamp with time zone;
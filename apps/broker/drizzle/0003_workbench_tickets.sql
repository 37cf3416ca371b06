CREATE TABLE "broker"."workbench_tickets" (
	"nonce" text PRIMARY KEY NOT NULL,
	"expires_at" bigint NOT NULL
);

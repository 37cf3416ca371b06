CREATE SCHEMA "broker";
--> statement-breakpoint
CREATE TABLE "broker"."effect_intents" (
	"episode_id" text NOT NULL,
	"ordinal" bigint NOT NULL,
	"invocation_id" text NOT NULL,
	"effect" text NOT NULL,
	"scope" text NOT NULL,
	"cost" bigint NOT NULL,
	"request_ref" text NOT NULL,
	"logical_time" bigint NOT NULL,
	CONSTRAINT "effect_intents_episode_ordinal" PRIMARY KEY("episode_id","ordinal")
);
--> statement-breakpoint
CREATE TABLE "broker"."effect_outcomes" (
	"episode_id" text NOT NULL,
	"ordinal" bigint NOT NULL,
	"status" text NOT NULL,
	"record_ref" text NOT NULL,
	CONSTRAINT "effect_outcomes_episode_id_ordinal_pk" PRIMARY KEY("episode_id","ordinal"),
	CONSTRAINT "effect_outcomes_status" CHECK ("broker"."effect_outcomes"."status" IN ('succeeded', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "broker"."effect_records" (
	"ref" text PRIMARY KEY NOT NULL,
	"episode_id" text NOT NULL,
	"invocation_id" text NOT NULL,
	"effect" text NOT NULL,
	"scope" text NOT NULL,
	"cost" bigint NOT NULL,
	"budget_before" bigint NOT NULL,
	"budget_after" bigint NOT NULL,
	"allowed" boolean NOT NULL,
	"failed" boolean NOT NULL,
	"denial" text NOT NULL,
	"request_ref" text NOT NULL,
	"result_ref" text NOT NULL,
	CONSTRAINT "effect_records_three_arm_law" CHECK (("broker"."effect_records"."allowed" AND NOT "broker"."effect_records"."failed" AND "broker"."effect_records"."denial" = '' AND "broker"."effect_records"."budget_after" = "broker"."effect_records"."budget_before" - "broker"."effect_records"."cost" AND "broker"."effect_records"."result_ref" <> '')
       OR ("broker"."effect_records"."allowed" AND "broker"."effect_records"."failed" AND "broker"."effect_records"."denial" = '' AND "broker"."effect_records"."budget_after" = "broker"."effect_records"."budget_before" - "broker"."effect_records"."cost" AND "broker"."effect_records"."result_ref" = '')
       OR (NOT "broker"."effect_records"."allowed" AND NOT "broker"."effect_records"."failed" AND "broker"."effect_records"."denial" IN ('denied:effect-name', 'denied:scope', 'denied:expired', 'denied:budget') AND "broker"."effect_records"."budget_after" = "broker"."effect_records"."budget_before" AND "broker"."effect_records"."result_ref" = '')),
	CONSTRAINT "effect_records_nonnegative" CHECK ("broker"."effect_records"."cost" >= 0 AND "broker"."effect_records"."budget_before" >= 0 AND "broker"."effect_records"."budget_after" >= 0)
);
--> statement-breakpoint
CREATE TABLE "broker"."episodes" (
	"id" text PRIMARY KEY NOT NULL,
	"worktree" text,
	"lease_holder" text,
	"lease_fence" bigint DEFAULT 0 NOT NULL,
	"lease_expires_at" bigint,
	CONSTRAINT "episodes_worktree_unique" UNIQUE("worktree")
);
--> statement-breakpoint
CREATE TABLE "broker"."grants" (
	"credential_id" text NOT NULL,
	"position" integer NOT NULL,
	"effect" text NOT NULL,
	"scope" text NOT NULL,
	"budget" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	CONSTRAINT "grants_credential_id_position_pk" PRIMARY KEY("credential_id","position"),
	CONSTRAINT "grants_budget_nonnegative" CHECK ("broker"."grants"."budget" >= 0)
);
--> statement-breakpoint
CREATE TABLE "broker"."objects" (
	"ref" text PRIMARY KEY NOT NULL,
	"semantic_id" text NOT NULL,
	"provenance" text NOT NULL,
	"payload" "bytea" NOT NULL
);
--> statement-breakpoint
CREATE TABLE "broker"."sessions" (
	"credential_id" text PRIMARY KEY NOT NULL,
	"episode_id" text NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"revoked_at" bigint
);
--> statement-breakpoint
CREATE TABLE "broker"."spend" (
	"episode_id" text NOT NULL,
	"effect" text NOT NULL,
	"scope" text NOT NULL,
	"spent" bigint NOT NULL,
	CONSTRAINT "spend_episode_id_effect_scope_pk" PRIMARY KEY("episode_id","effect","scope")
);
--> statement-breakpoint
ALTER TABLE "broker"."effect_outcomes" ADD CONSTRAINT "effect_outcomes_intent_fk" FOREIGN KEY ("episode_id","ordinal") REFERENCES "broker"."effect_intents"("episode_id","ordinal") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "broker"."grants" ADD CONSTRAINT "grants_credential_id_sessions_credential_id_fk" FOREIGN KEY ("credential_id") REFERENCES "broker"."sessions"("credential_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "effect_intents_invocation_idx" ON "broker"."effect_intents" USING btree ("invocation_id");--> statement-breakpoint
CREATE INDEX "effect_records_invocation_idx" ON "broker"."effect_records" USING btree ("invocation_id");--> statement-breakpoint
CREATE INDEX "sessions_episode_idx" ON "broker"."sessions" USING btree ("episode_id","created_at");
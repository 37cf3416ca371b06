CREATE SCHEMA "ledger";
--> statement-breakpoint
CREATE TABLE "ledger"."commit_journal" (
	"invocation_id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"claim_hash" text,
	"commit_hash" text,
	"state" text NOT NULL,
	"end_reason" text,
	"claim_expires_at" timestamp with time zone,
	"entry_index" bigint,
	"world_ref" text,
	"output_ref" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "commit_journal_kind" CHECK ("ledger"."commit_journal"."kind" IN ('tool', 'rest')),
	CONSTRAINT "commit_journal_state" CHECK ("ledger"."commit_journal"."state" IN ('claimed', 'intent', 'committed', 'ended')),
	CONSTRAINT "commit_journal_end_reason" CHECK (("ledger"."commit_journal"."state" = 'ended') = ("ledger"."commit_journal"."end_reason" IS NOT NULL) AND ("ledger"."commit_journal"."end_reason" IS NULL OR "ledger"."commit_journal"."end_reason" IN ('lapsed', 'uncertain', 'abandoned'))),
	CONSTRAINT "commit_journal_outcome" CHECK (("ledger"."commit_journal"."state" = 'committed') = ("ledger"."commit_journal"."entry_index" IS NOT NULL AND "ledger"."commit_journal"."world_ref" IS NOT NULL AND "ledger"."commit_journal"."output_ref" IS NOT NULL AND "ledger"."commit_journal"."commit_hash" IS NOT NULL))
);
--> statement-breakpoint
CREATE TABLE "ledger"."commit_objects" (
	"object_ref" text NOT NULL,
	"entry_index" bigint NOT NULL,
	CONSTRAINT "commit_objects_pk" PRIMARY KEY("object_ref","entry_index")
);
--> statement-breakpoint
CREATE TABLE "ledger"."heads" (
	"key" text PRIMARY KEY NOT NULL,
	"world_ref" text NOT NULL,
	"entry_index" bigint NOT NULL,
	"entry_hash" text NOT NULL,
	"revision" bigint NOT NULL,
	CONSTRAINT "heads_key_selected" CHECK ("ledger"."heads"."key" = 'selected')
);
--> statement-breakpoint
CREATE TABLE "ledger"."log_entries" (
	"entry_index" bigint PRIMARY KEY NOT NULL,
	"entry_hash" text NOT NULL,
	"semantics_epoch" bigint NOT NULL,
	"transition_fn" text NOT NULL,
	"interpreter" text NOT NULL,
	"prev_entry_hash" text NOT NULL,
	"written_by" text NOT NULL,
	"transition_ref" text NOT NULL,
	CONSTRAINT "log_entries_entry_hash_unique" UNIQUE("entry_hash"),
	CONSTRAINT "log_entries_index_non_negative" CHECK ("ledger"."log_entries"."entry_index" >= 0)
);
--> statement-breakpoint
CREATE TABLE "ledger"."objects" (
	"hash" text PRIMARY KEY NOT NULL,
	"interface_hash" text NOT NULL,
	"semantic_id" text NOT NULL,
	"provenance" text NOT NULL,
	"payload" "bytea" NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ledger"."registry_heads" (
	"name" text PRIMARY KEY NOT NULL,
	"head" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ledger"."worlds" (
	"ref" text PRIMARY KEY NOT NULL,
	"revision" bigint NOT NULL,
	"state_root" text NOT NULL,
	"log_head" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "ledger"."commit_objects" ADD CONSTRAINT "commit_objects_object_ref_objects_hash_fk" FOREIGN KEY ("object_ref") REFERENCES "ledger"."objects"("hash") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger"."commit_objects" ADD CONSTRAINT "commit_objects_entry_index_log_entries_entry_index_fk" FOREIGN KEY ("entry_index") REFERENCES "ledger"."log_entries"("entry_index") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "log_entries_by_transition_ref" ON "ledger"."log_entries" USING btree ("transition_ref","entry_index");--> statement-breakpoint
CREATE INDEX "objects_by_semantic_id" ON "ledger"."objects" USING btree ("semantic_id","hash");--> statement-breakpoint
CREATE INDEX "worlds_by_state_root" ON "ledger"."worlds" USING btree ("state_root","ref");
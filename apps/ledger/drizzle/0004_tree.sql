CREATE TABLE "ledger"."checkpoints" (
	"tree_size" bigint PRIMARY KEY NOT NULL,
	"root_hash" "bytea" NOT NULL,
	"note" text NOT NULL,
	"signed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ledger"."tree_nodes" (
	"level" smallint NOT NULL,
	"node_index" bigint NOT NULL,
	"hash" "bytea" NOT NULL,
	CONSTRAINT "tree_nodes_pk" PRIMARY KEY("level","node_index"),
	CONSTRAINT "tree_nodes_level" CHECK ("ledger"."tree_nodes"."level" BETWEEN 0 AND 63),
	CONSTRAINT "tree_nodes_index_non_negative" CHECK ("ledger"."tree_nodes"."node_index" >= 0),
	CONSTRAINT "tree_nodes_hash_size" CHECK (octet_length("ledger"."tree_nodes"."hash") = 32)
);
--> statement-breakpoint
ALTER TABLE "ledger"."heads" ADD COLUMN "tree_border" "bytea";
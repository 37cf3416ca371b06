-- `world why` and the workbench's Why page find an entry by a ref it names (world-spec §7.3) by
-- index instead of scanning back from the head: one row per (ref, role, entry) an invocation
-- entry names — its record's input, output and plan, each effect record, and each effect
-- record's request and result. The record itself is found by log_entries_by_transition_ref, a
-- world by its ref, an invocation id by the timeline's invocation_id (indexed below). A trigger
-- on the log keeps the rows in the transaction that appends the entry, reading the objects the
-- same statement wrote (as timeline_append does), so no statement is added to the commit path
-- and a rolled-back entry names nothing. Derived data only: the walk re-verifies every link.
CREATE TABLE "ledger"."entry_refs" (
	"ref" text NOT NULL,
	"role" text NOT NULL,
	"entry_index" bigint NOT NULL REFERENCES "ledger"."log_entries" ("entry_index"),
	PRIMARY KEY ("ref", "role", "entry_index"),
	CONSTRAINT "entry_refs_role" CHECK ("role" IN ('input', 'output', 'plan', 'effect', 'request', 'result'))
);--> statement-breakpoint
CREATE INDEX "timeline_by_invocation_id" ON "ledger"."timeline" USING btree ("invocation_id", "entry_index");--> statement-breakpoint
-- The refs entry p_index names through its record p_ref, when that is an invocation record (v1 or
-- v2, world-spec §2.14): the fields `world why` matches a ref against. A field that is not a
-- string (or an effect record that is not stored JSON) names nothing; a bad object never fails a
-- commit (ledger.timeline_json).
CREATE FUNCTION "ledger"."entry_refs_of"(p_index bigint, p_ref text)
RETURNS SETOF "ledger"."entry_refs" LANGUAGE plpgsql STABLE AS $$
DECLARE
  rec jsonb;
  eff jsonb;
  er jsonb;
  f text;
  r "ledger"."entry_refs";
BEGIN
  r.entry_index := p_index;
  SELECT "ledger"."timeline_json"(o.payload) INTO rec FROM "ledger"."objects" o
   WHERE o.hash = p_ref
     AND o.semantic_id IN ('world/invocation-record/v2', 'world/invocation-record/v1');
  IF rec IS NULL OR jsonb_typeof(rec) <> 'object' THEN RETURN; END IF;
  FOREACH f IN ARRAY ARRAY['input', 'output', 'plan'] LOOP
    IF jsonb_typeof(rec->f) = 'string' THEN
      r.role := f;
      r.ref := rec->>f;
      RETURN NEXT r;
    END IF;
  END LOOP;
  IF jsonb_typeof(rec->'effects') <> 'array' THEN RETURN; END IF;
  FOR eff IN SELECT DISTINCT value FROM jsonb_array_elements(rec->'effects') LOOP
    IF jsonb_typeof(eff) <> 'string' THEN CONTINUE; END IF;
    r.role := 'effect';
    r.ref := eff #>> '{}';
    RETURN NEXT r;
    SELECT "ledger"."timeline_json"(o.payload) INTO er FROM "ledger"."objects" o
     WHERE o.hash = eff #>> '{}';
    IF er IS NULL OR jsonb_typeof(er) <> 'object' THEN CONTINUE; END IF;
    IF jsonb_typeof(er->'requestRef') = 'string' THEN
      r.role := 'request';
      r.ref := er->>'requestRef';
      RETURN NEXT r;
    END IF;
    IF jsonb_typeof(er->'resultRef') = 'string' AND er->>'resultRef' <> '' THEN
      r.role := 'result';
      r.ref := er->>'resultRef';
      RETURN NEXT r;
    END IF;
  END LOOP;
END $$;--> statement-breakpoint
-- Fires at the end of the appending statement, inside its transaction: the record and effect
-- records the entry carries were written by the same statement (CTEs) and are visible here.
CREATE FUNCTION "ledger"."entry_refs_append"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "ledger"."entry_refs"
  SELECT * FROM "ledger"."entry_refs_of"(NEW.entry_index, NEW.transition_ref)
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;--> statement-breakpoint
-- The trigger first: it locks the log against inserts until this migration commits, so the
-- backfill below covers every entry committed before it and the trigger every entry after.
CREATE TRIGGER "log_entries_refs" AFTER INSERT ON "ledger"."log_entries"
  FOR EACH ROW EXECUTE FUNCTION "ledger"."entry_refs_append"();--> statement-breakpoint
INSERT INTO "ledger"."entry_refs"
SELECT r.* FROM "ledger"."log_entries" e, LATERAL "ledger"."entry_refs_of"(e.entry_index, e.transition_ref) r
ON CONFLICT DO NOTHING;

-- The workbench timeline index (issue 15): one row per log entry, written by a trigger in the
-- transaction that appends the entry, so the timeline's filters (episode, tool, outcome, surface,
-- time) are answered by an index, not by reading entries. Derived data only: it never feeds a hash,
-- and the entry's header and objects stay the truth (the workbench re-verifies them).
CREATE TABLE "ledger"."timeline" (
	"entry_index" bigint PRIMARY KEY NOT NULL REFERENCES "ledger"."log_entries" ("entry_index"),
	"committed_at" timestamp with time zone,
	"surface" text NOT NULL,
	"episode_id" text,
	"tool" text,
	"outcome" text NOT NULL,
	"reason" text,
	"invocation_id" text,
	CONSTRAINT "timeline_outcome" CHECK ("outcome" IN ('ok', 'refused', 'denied', 'failed')),
	CONSTRAINT "timeline_surface" CHECK ("surface" IN ('mcp', 'a2a', 'rest', 'genesis'))
);--> statement-breakpoint
CREATE INDEX "timeline_by_episode" ON "ledger"."timeline" USING btree ("episode_id", "entry_index");--> statement-breakpoint
CREATE INDEX "timeline_by_tool" ON "ledger"."timeline" USING btree ("tool", "entry_index");--> statement-breakpoint
CREATE INDEX "timeline_by_outcome" ON "ledger"."timeline" USING btree ("outcome", "entry_index");--> statement-breakpoint
CREATE INDEX "timeline_by_surface" ON "ledger"."timeline" USING btree ("surface", "entry_index");--> statement-breakpoint
CREATE INDEX "timeline_by_time" ON "ledger"."timeline" USING btree ("committed_at", "entry_index");--> statement-breakpoint
CREATE INDEX "commit_journal_unrecorded" ON "ledger"."commit_journal" USING btree ("created_at", "invocation_id") WHERE "state" <> 'committed' AND "kind" = 'tool';--> statement-breakpoint
-- A payload as JSON, or NULL when it is not UTF-8 JSON (a bad object never fails a commit).
CREATE FUNCTION "ledger"."timeline_json"(p bytea) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN convert_from(p, 'UTF8')::jsonb;
EXCEPTION WHEN others THEN
  RETURN NULL;
END $$;--> statement-breakpoint
-- What one entry was (the workbench timeline's one rule of outcomes, world-spec §4.4): the surface
-- by its writer; for an invocation record its episode, tool and outcome (the first denied or
-- failed effect of the output, with the effect record's denial; else refused when ok is false;
-- else ok); a REST entry's episode from its writer `episode:<id>[/<label>]`.
CREATE FUNCTION "ledger"."timeline_describe"(p_index bigint, p_written_by text, p_ref text)
RETURNS "ledger"."timeline" LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  r "ledger"."timeline";
  rec jsonb;
  out jsonb;
  eff jsonb;
  er jsonb;
BEGIN
  r.entry_index := p_index;
  r.surface := CASE WHEN p_written_by = 'coordinator:mcp' THEN 'mcp'
                    WHEN p_written_by = 'coordinator:a2a' THEN 'a2a'
                    WHEN p_index = 0 THEN 'genesis' ELSE 'rest' END;
  r.episode_id := CASE WHEN p_written_by LIKE 'episode:%'
                       THEN split_part(substr(p_written_by, 9), '/', 1) END;
  r.outcome := 'ok';
  SELECT "ledger"."timeline_json"(o.payload) INTO rec FROM "ledger"."objects" o
   WHERE o.hash = p_ref
     AND o.semantic_id IN ('world/invocation-record/v2', 'world/invocation-record/v1');
  IF rec IS NULL OR jsonb_typeof(rec) <> 'object' THEN RETURN r; END IF;
  r.episode_id := CASE WHEN jsonb_typeof(rec->'episodeId') = 'string' THEN rec->>'episodeId' END;
  r.tool := CASE WHEN jsonb_typeof(rec->'skillId') = 'string' THEN rec->>'skillId' END;
  r.invocation_id := CASE WHEN jsonb_typeof(rec->'invocationId') = 'string' THEN rec->>'invocationId' END;
  IF jsonb_typeof(rec->'output') <> 'string' THEN RETURN r; END IF;
  SELECT "ledger"."timeline_json"(o.payload) INTO out FROM "ledger"."objects" o
   WHERE o.hash = rec->>'output';
  IF out IS NULL OR jsonb_typeof(out) <> 'object' THEN RETURN r; END IF;
  IF jsonb_typeof(out #> '{world,effects}') = 'array' THEN
    FOR eff IN SELECT value FROM jsonb_array_elements(out #> '{world,effects}') LOOP
      IF eff->>'status' IN ('denied', 'failed') THEN
        r.outcome := eff->>'status';
        IF jsonb_typeof(eff->'record') = 'string' THEN
          SELECT "ledger"."timeline_json"(o.payload) INTO er FROM "ledger"."objects" o
           WHERE o.hash = eff->>'record' AND o.semantic_id = 'world/effect-record/v1';
          IF r.outcome = 'denied' AND er IS NOT NULL AND jsonb_typeof(er) = 'object'
             AND er->'allowed' IS DISTINCT FROM 'true'::jsonb
             AND jsonb_typeof(er->'denial') = 'string' THEN
            r.reason := er->>'denial';
          END IF;
        END IF;
        RETURN r;
      END IF;
    END LOOP;
  END IF;
  IF out->'ok' = 'false'::jsonb THEN
    r.outcome := 'refused';
    r.reason := CASE WHEN jsonb_typeof(out->'refused') = 'string' THEN out->>'refused' END;
  END IF;
  RETURN r;
END $$;--> statement-breakpoint
-- The trigger: fires at the end of the appending statement, inside its transaction, after the
-- head row was locked — so committed_at (clock_timestamp) rises with entry_index. The objects the
-- entry carries are written by the same statement (CTEs) and visible to an AFTER trigger.
CREATE FUNCTION "ledger"."timeline_append"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r "ledger"."timeline";
BEGIN
  r := "ledger"."timeline_describe"(NEW.entry_index, NEW.written_by, NEW.transition_ref);
  r.committed_at := clock_timestamp();
  INSERT INTO "ledger"."timeline" VALUES (r.*);
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "log_entries_timeline" AFTER INSERT ON "ledger"."log_entries"
  FOR EACH ROW EXECUTE FUNCTION "ledger"."timeline_append"();--> statement-breakpoint
-- Backfill: every entry already in the log; its time is its journal row's updated_at (the commit
-- that bound it), or unknown (NULL) for entries without one (the genesis, unjournaled commits).
INSERT INTO "ledger"."timeline"
SELECT (d).entry_index, j.updated_at, (d).surface, (d).episode_id, (d).tool, (d).outcome,
       (d).reason, (d).invocation_id
  FROM (SELECT e.entry_index AS i,
               "ledger"."timeline_describe"(e.entry_index, e.written_by, e.transition_ref) AS d
          FROM "ledger"."log_entries" e) s
  LEFT JOIN LATERAL (SELECT max(cj.updated_at) AS updated_at FROM "ledger"."commit_journal" cj
                      WHERE cj.entry_index = s.i AND cj.state = 'committed') j ON true;

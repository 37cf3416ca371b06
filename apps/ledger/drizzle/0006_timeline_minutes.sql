-- The Overview's entries per minute (ledger.timeline.rate) read from per-minute counts instead of
-- recounting the timeline's rows of the last hour on every render. Two rollups of the timeline
-- index: every entry by its commit minute (UTC) and outcome, and each episode's entries the same
-- way (a session's own counts; its others' are the difference, shown as hidden). A trigger on the
-- timeline keeps both in the transaction that inserts the row (the entry's own, through
-- timeline_append), so they count exactly the committed rows: no statement is added to the commit
-- path, and a row rolled back is never counted. Rows without a commit time (a backfilled genesis,
-- unjournaled commits) are in no minute, as the rate never counted them.
CREATE TABLE "ledger"."timeline_minutes" (
	"minute" timestamp with time zone NOT NULL,
	"outcome" text NOT NULL,
	"entries" bigint NOT NULL,
	PRIMARY KEY ("minute", "outcome")
);--> statement-breakpoint
CREATE TABLE "ledger"."timeline_episode_minutes" (
	"episode_id" text NOT NULL,
	"minute" timestamp with time zone NOT NULL,
	"outcome" text NOT NULL,
	"entries" bigint NOT NULL,
	PRIMARY KEY ("episode_id", "minute", "outcome")
);--> statement-breakpoint
-- Appends serialize on the head row before they insert their timeline rows, so two transactions
-- never wait on each other's minute rows in opposite orders.
CREATE FUNCTION "ledger"."timeline_count"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  m timestamptz;
BEGIN
  IF NEW.committed_at IS NULL THEN RETURN NULL; END IF;
  m := date_trunc('minute', NEW.committed_at, 'UTC');
  INSERT INTO "ledger"."timeline_minutes" AS c VALUES (m, NEW.outcome, 1)
    ON CONFLICT ("minute", "outcome") DO UPDATE SET entries = c.entries + 1;
  IF NEW.episode_id IS NOT NULL THEN
    INSERT INTO "ledger"."timeline_episode_minutes" AS c VALUES (NEW.episode_id, m, NEW.outcome, 1)
      ON CONFLICT ("episode_id", "minute", "outcome") DO UPDATE SET entries = c.entries + 1;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
-- The trigger first: it locks the timeline against inserts until this migration commits, so the
-- backfill below counts every row committed before it and the trigger every row after.
CREATE TRIGGER "timeline_minutes_count" AFTER INSERT ON "ledger"."timeline"
  FOR EACH ROW EXECUTE FUNCTION "ledger"."timeline_count"();--> statement-breakpoint
INSERT INTO "ledger"."timeline_minutes"
SELECT date_trunc('minute', committed_at, 'UTC'), outcome, count(*)
  FROM "ledger"."timeline" WHERE committed_at IS NOT NULL
 GROUP BY 1, 2;--> statement-breakpoint
INSERT INTO "ledger"."timeline_episode_minutes"
SELECT episode_id, date_trunc('minute', committed_at, 'UTC'), outcome, count(*)
  FROM "ledger"."timeline" WHERE committed_at IS NOT NULL AND episode_id IS NOT NULL
 GROUP BY 1, 2, 3;

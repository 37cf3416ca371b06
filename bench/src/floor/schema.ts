/**
 * The floor's tables and its three durable single-statement commits (issue 19): an intent row
 * before the file read, an outcome row after it, and a log entry row with the head moved in the
 * same statement. Each statement runs alone (autocommit), so each is one WAL flush with
 * `synchronous_commit` on, as World's. Named statements, as World's hot path uses.
 */

/** Creates the floor's schema in a fresh database (the harness runs it once per run). */
export const FLOOR_DDL = `
CREATE SCHEMA floor;
CREATE TABLE floor.intents (
  id bigserial PRIMARY KEY,
  episode text NOT NULL,
  path text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE floor.outcomes (
  intent_id bigint PRIMARY KEY REFERENCES floor.intents (id),
  ok boolean NOT NULL,
  bytes integer NOT NULL
);
CREATE TABLE floor.head (
  id smallint PRIMARY KEY CHECK (id = 1),
  entry_index bigint NOT NULL
);
CREATE TABLE floor.entries (
  entry_index bigint PRIMARY KEY,
  episode text NOT NULL,
  intent_id bigint NOT NULL,
  committed_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO floor.head (id, entry_index) VALUES (1, 0);
`;

/** The broker's first commit: the intent, durable before the handler runs. $1 episode, $2 path. */
export const INSERT_INTENT = {
  name: 'floor_intent',
  text: 'INSERT INTO floor.intents (episode, path) VALUES ($1, $2) RETURNING id',
};

/** The broker's second commit: the outcome of that intent. $1 intent id, $2 ok, $3 bytes. */
export const INSERT_OUTCOME = {
  name: 'floor_outcome',
  text: 'INSERT INTO floor.outcomes (intent_id, ok, bytes) VALUES ($1, $2, $3)',
};

/**
 * The ledger's commit: the head moves and the entry is written in one statement (the head row
 * lock serializes appends, each through its own WAL flush: no group commit in the floor).
 * $1 episode, $2 intent id; returns the entry's index.
 */
export const APPEND_ENTRY = {
  name: 'floor_append',
  text: `WITH h AS (UPDATE floor.head SET entry_index = entry_index + 1 WHERE id = 1 RETURNING entry_index)
INSERT INTO floor.entries (entry_index, episode, intent_id) SELECT entry_index, $1, $2 FROM h RETURNING entry_index`,
};

/** The head's entry index (the harness's committed-call count). */
export const HEAD_INDEX = 'SELECT entry_index FROM floor.head WHERE id = 1';

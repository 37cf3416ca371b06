/**
 * The episode a REST `writtenBy` names (`episode:<id>` or `episode:<id>/<label>`), or null: the
 * tests' statement of what the generated column `log_entries.writer_episode` computes in SQL
 * (src/db/schema.ts), which trust.int-spec.ts compares row by row.
 */
export function writerEpisodeOf(writtenBy: string): string | null {
  if (!writtenBy.startsWith('episode:')) return null;
  return writtenBy.slice('episode:'.length).split('/')[0]!;
}

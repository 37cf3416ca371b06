// drizzle-kit configuration of the ledger's schema: `pnpm exec drizzle-kit generate` writes the
// migrations committed in ./drizzle (applied at start-up by startLedger under an advisory lock).
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema.ts',
  out: './drizzle',
  schemaFilter: ['ledger'],
});

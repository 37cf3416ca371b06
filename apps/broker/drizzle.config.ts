// drizzle-kit configuration of the broker's schema: `pnpm exec drizzle-kit generate` writes
// the migrations committed in ./drizzle (applied at start-up under an advisory lock).
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema.ts',
  out: './drizzle',
  schemaFilter: ['broker'],
});

import type { Database } from '@world/runtime';

/** A transaction handle: drizzle's transaction is a Database too, so helpers accept either. */
export type Tx = Parameters<Parameters<Database['transaction']>[0]>[0];
export type Queryable = Database | Tx;

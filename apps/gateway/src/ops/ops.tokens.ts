import type { ReadinessChecks } from '@world/runtime';

/** What the operations routes of the gateway's main port need. */
export interface OpsContext {
  /** the gateway's readiness checks: its NATS connection (none in embedded mode) */
  checks: ReadinessChecks;
  /** true once the gateway began shutting down: /readyz answers `draining` (default never) */
  isDraining?: () => boolean;
}

/** Injection token of the OpsContext. */
export const OPS = Symbol('world.gateway.ops');

import type { DeadlineTable } from '@world/contracts';

/** What the planner's use cases are configured with. */
export interface PlannerSettings {
  replica: string;
  /** this instance's caller id: the broker asks it before granting a lease it waited for */
  caller: string;
  deadlines: DeadlineTable;
}

export const PLANNER_SETTINGS = Symbol('world.planner.settings');
/**
 * The planner's background work (an InFlight): lease releases sent without waiting
 * (DESIGN.md §2), which a shutdown waits for before it disconnects (world-spec §7.2).
 */
export const PLANNER_BACKGROUND = Symbol('world.planner.background');

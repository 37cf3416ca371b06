import type { DeadlineTable } from '@world/contracts';

/** What the planner's use cases are configured with. */
export interface PlannerSettings {
  replica: string;
  /** this instance's caller id: the broker asks it before granting a lease it waited for */
  caller: string;
  deadlines: DeadlineTable;
}

export const PLANNER_SETTINGS = Symbol('world.planner.settings');

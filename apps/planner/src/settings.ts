import type { DeadlineTable } from '@world/contracts';

/** What the planner's use cases are configured with. */
export interface PlannerSettings {
  replica: string;
  deadlines: DeadlineTable;
}

export const PLANNER_SETTINGS = Symbol('world.planner.settings');

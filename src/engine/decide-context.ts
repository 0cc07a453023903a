/** What the scheduler's decisions (decide.ts, decide-revision.ts) read besides the run state. */
import type { PlanStep } from '../plan/model';
import type { ResultStore, RunState } from './state';

export type DecideContext = {
  now: number;
  results: ResultStore;
  /** How a scheduled step is carried out; the Durable Object runs sequential plans inline. */
  /** Where an attempt of `step` running `action` (its fallback's, on a fallback) is carried out. */
  dispatch: (state: RunState, step: PlanStep, action: string) => 'queue' | 'inline';
  /** A planner is there to revise plans (revision triggers other than a user's stay quiet without one). */
  canRevise: boolean;
};

/**
 * How long a run's planning, revision or LLM judge may take in process before it is given up: three
 * `planning_timeout_s`, as one issue of it may take in the run's object (durable/side-work.ts) — time
 * for a call, a repair and a fallback model, each bounded by `planning_timeout_s`. A planner that never
 * answers (one of the team's own, or a provider that ignores its signal) then fails the run with
 * `planning_timeout` instead of holding it in `planning` for ever. In process nothing is lost with an
 * instance, so the work is not issued again, as the Worker's is: it fails at its first deadline.
 */
import { EdgeplanError } from '../errors';
import type { MachineInput } from '../engine/machine';
import { failureInput, type SideCommand } from '../engine/side-work';
import type { RunConfig } from '../plan/config';

/** Model calls one planning may make in its time: the first, a repair, a fallback model. */
const CALLS_PER_DEADLINE = 3;

/**
 * Milliseconds `c` may take, or null for work with no deadline of its own (an approval has the run's
 * approval deadline; a question waits for its answer).
 * @example sideDeadlineMs({ type: 'plan' }, config); // 180_000 with planning_timeout_s 60
 */
export function sideDeadlineMs(c: SideCommand, config: RunConfig): number | null {
  if (c.type !== 'plan' && c.type !== 'revise' && c.type !== 'judge') return null;
  return planningDeadlineMs(config);
}

/**
 * Milliseconds one planning (or revision) may take: also the bound of `PlanningPattern.generatePlan`,
 * which asks the planner outside a run.
 * @example planningDeadlineMs(config); // 180_000 with planning_timeout_s 60
 */
export function planningDeadlineMs(config: RunConfig): number {
  return config.planning_timeout_s * 1000 * CALLS_PER_DEADLINE;
}

/**
 * `planning_timeout` for a planning asked outside a run (`generatePlan`) that ran past
 * {@link planningDeadlineMs}, worded as a run's.
 */
export function planningTimeout(config: RunConfig): EdgeplanError {
  const limit = config.planning_timeout_s * CALLS_PER_DEADLINE;
  return new EdgeplanError(
    'planning_timeout',
    `The planner did not answer the plan within ${limit} s (${CALLS_PER_DEADLINE} × planning_timeout_s, ` +
      `which is ${config.planning_timeout_s}); its work was aborted`,
  );
}

/** What the run is told when `c` ran past its deadline: its failure, named as the Worker names it. */
export function pastDeadline(c: SideCommand, config: RunConfig): MachineInput | null {
  const limit = config.planning_timeout_s * CALLS_PER_DEADLINE;
  const code = c.type === 'judge' ? 'judge_timeout' : 'planning_timeout';
  const who = c.type === 'judge' ? 'The judge' : 'The planner';
  const message =
    `${who} did not answer the ${c.type} within ${limit} s (${CALLS_PER_DEADLINE} × planning_timeout_s, ` +
    `which is ${config.planning_timeout_s}); its work was aborted`;
  return failureInput(c, new EdgeplanError(code, message));
}

/**
 * A plan that carries its run's answer (seed 004: a solution's non-null `output`): its steps run,
 * then the run ends with that answer as its final output, and a plan-as-context loop takes no more
 * turns. Kept in the plan's metadata, so it is part of the recorded version and replays with it.
 */
import type { Plan } from './model';

export const FINAL_OUTPUT_KEY = 'final_output';

/**
 * The answer a plan carries, if any.
 * @example declaredFinalOutput({ ...plan, metadata: { final_output: { status: 'Failed' } } }) // { found: true, value: { status: 'Failed' } }
 */
export function declaredFinalOutput(plan: Pick<Plan, 'metadata'> | null): {
  found: boolean;
  value?: unknown;
} {
  const meta = plan?.metadata;
  if (!meta || !Object.hasOwn(meta, FINAL_OUTPUT_KEY)) return { found: false };
  return { found: true, value: meta[FINAL_OUTPUT_KEY] };
}

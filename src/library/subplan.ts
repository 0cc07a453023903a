/**
 * Hierarchical plans in process: a step with a sub-plan is done when its sub-plan is. The sub-plan
 * runs as a run of its own (same tools, planner and configuration, no approval), and its final output
 * becomes the step's output — seed 000 §2.1.3's roll-up.
 */
import { toErrorInfo } from '../errors';
import type { StepOutcome } from '../engine/machine';
import type { RunSnapshot } from '../engine/snapshot';
import type { RunConfig } from '../plan/config';
import type { BegunAttempt } from './attempt';
import type { StartRequest } from './runner-options';

/** The part of a runner a sub-plan needs. */
export type ChildRun = {
  start(req: StartRequest): void;
  done(): Promise<RunSnapshot>;
  cancel(reason?: string): unknown;
};

/**
 * Runs the sub-plan of the attempt's step on a fresh runner; never throws.
 * @example const outcome = await runSubplan(attempt, { config, input }, () => new LocalRunner({ tools }), signal);
 */
export async function runSubplan(
  a: BegunAttempt,
  parent: { config: RunConfig; input: unknown },
  spawn: () => ChildRun,
  signal: AbortSignal,
): Promise<StepOutcome> {
  const started = Date.now();
  const child = spawn();
  const cancel = () => child.cancel(`step "${a.step.id}" of run ${a.runId} was cancelled`);
  try {
    child.start({
      runId: `${a.runId}.${a.step.id}`,
      goal: a.step.description,
      plan: a.step.subplan,
      config: { ...parent.config, require_plan_approval: false },
      input: parent.input,
    });
    signal.addEventListener('abort', cancel, { once: true });
    const end = await child.done();
    const latency_ms = Date.now() - started;
    if (end.status === 'completed') return { success: true, output: end.final_output ?? null, latency_ms };
    const why = end.error?.message ?? end.status;
    const message = `The sub-plan of step "${a.step.id}" ${end.status}: ${why}`;
    return { success: false, error: { code: 'subplan_failed', message, retryable: false }, latency_ms };
  } catch (err) {
    return { success: false, error: toErrorInfo(err), latency_ms: Date.now() - started };
  } finally {
    signal.removeEventListener('abort', cancel);
  }
}

/**
 * The steps to draw: the events' fold, or — when the run read again (after a refused action, after a
 * reconnect) is ahead of the events read so far — the steps as that snapshot has them. Without it the
 * graph went on showing its last colours (every node pending beside a badge saying "completed")
 * until the late events arrived, if ever.
 * @example
 * <Dag steps={stepsNow(view, ahead ? run : null)} … />
 */
import { type PlanStep, type Run, type RunView, type StepView } from '../client';
import { unstartedStep } from '../client/planned-steps';

type SnapshotStatus = NonNullable<Run['steps'][string]>['status'];

/** The run's own step statuses, as the fold names them: `blocked` and `revised` steps wait to run. */
const AS_VIEW: Record<SnapshotStatus, StepView['status']> = {
  pending: 'pending',
  blocked: 'pending',
  revised: 'pending',
  running: 'running',
  completed: 'completed',
  failed: 'failed',
  skipped: 'skipped',
};

/** `view.steps`, or with `ahead` (a snapshot newer than the events) the snapshot's plan and statuses. */
export function stepsNow(view: RunView, ahead: Run | null): StepView[] {
  if (!ahead) return view.steps;
  const byId = new Map(view.steps.map((s) => [s.id, s]));
  // Another plan version than the events' (modified or revised meanwhile): its steps, not theirs.
  const plan = ahead.plan && !('$elided' in ahead.plan) ? ahead.plan : null;
  const planned: readonly PlanStep[] =
    plan && ahead.plan_version !== view.plan_version ? plan.steps : view.steps.map((s) => s.planned);
  return planned.map((p) => {
    const kept = byId.get(p.id) ?? unstartedStep(p);
    const now = ahead.steps[p.id];
    if (!now) return kept;
    // A step the snapshot has running on a run that has ended was cut off by the end, as the fold says.
    const status = now.interrupted ? 'interrupted' : AS_VIEW[now.status];
    return {
      ...kept,
      status,
      attempts: Math.max(kept.attempts, now.attempts),
      error: now.error?.message ?? (now.status === 'failed' ? kept.error : null),
      skip_reason: now.skip_reason,
      latency_ms: now.latency_ms ?? kept.latency_ms,
      started_at: now.status === 'running' && now.started_at ? Date.parse(now.started_at) : null,
    };
  });
}

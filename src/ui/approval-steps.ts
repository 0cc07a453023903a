/**
 * Which steps of a plan awaiting approval the approval lets run, and which it does not touch: a
 * revision keeps the steps an earlier version ran (their results stand, they are not run again) and
 * the ones still running under that version's approval. An approver reading "N steps to approve"
 * should count only what their decision starts.
 * @example
 * const kept = keptOf(now.steps); // Map { 'fetch' => 'done' }
 * const { toRun, held } = splitForApproval(plan.steps, kept);
 */
import type { PlanStep, StepView } from '../client';

/** What a step the approval does not run is: done (its result kept), skipped, or still running. */
export type KeptState = 'done' | 'skipped' | 'running';

const KEPT: Partial<Record<StepView['status'], KeptState>> = {
  completed: 'done',
  skipped: 'skipped',
  running: 'running',
  retrying: 'running',
};

/** The steps of a live run's view that the approval does not run, with what each is. */
export function keptOf(steps: readonly StepView[]): Map<string, KeptState> {
  const kept = new Map<string, KeptState>();
  for (const s of steps) {
    const state = KEPT[s.status];
    if (state) kept.set(s.id, state);
  }
  return kept;
}

/** The plan's steps to approve and the ones kept, each in plan order. */
export function splitForApproval(
  steps: readonly PlanStep[],
  kept: ReadonlyMap<string, KeptState>,
): { toRun: PlanStep[]; held: PlanStep[] } {
  return { toRun: steps.filter((s) => !kept.has(s.id)), held: steps.filter((s) => kept.has(s.id)) };
}

/**
 * The line a collapsed list of kept steps is summed up by.
 * @example keptSummary(['done', 'done', 'running']) // '2 steps already done, 1 running — kept from before, not run again'
 */
export function keptSummary(states: readonly KeptState[]): string {
  const n = (s: KeptState) => states.filter((x) => x === s).length;
  const parts = [
    n('done') ? `${n('done')} ${n('done') === 1 ? 'step' : 'steps'} already done` : '',
    n('skipped') ? `${n('skipped')} skipped` : '',
    n('running') ? `${n('running')} running` : '',
  ].filter(Boolean);
  // "1 running" alone reads as a count of steps too.
  const first = parts[0] ?? '';
  const head = /^\d+ (skipped|running)$/.test(first)
    ? first.replace(/^(\d+) /, (_m, k: string) => `${k} ${k === '1' ? 'step' : 'steps'} `)
    : first;
  return `${[head, ...parts.slice(1)].join(', ')} — kept from before, not run again`;
}

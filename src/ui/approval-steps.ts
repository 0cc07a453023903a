/**
 * Which steps of a plan awaiting approval the approval lets run, and which it does not touch: a
 * revision keeps the steps an earlier version ran (their results stand, they are not run again) and
 * the ones still running under that version's approval. An approver reading "N steps to approve"
 * should count only what their decision starts.
 * @example
 * const { toRun, kept } = stepsForApproval(now.steps);
 * // toRun: the steps to approve; kept: [{ step, state: 'done' }, …], shown apart
 */
import type { StepView } from '../client';

/** What a step not run by the approval is: done (its result kept), skipped, or still running. */
export type KeptState = 'done' | 'skipped' | 'running';

const KEPT: Partial<Record<StepView['status'], KeptState>> = {
  completed: 'done',
  skipped: 'skipped',
  running: 'running',
  retrying: 'running',
};

export function stepsForApproval(steps: readonly StepView[]): {
  toRun: StepView[];
  kept: { step: StepView; state: KeptState }[];
} {
  const toRun: StepView[] = [];
  const kept: { step: StepView; state: KeptState }[] = [];
  for (const step of steps) {
    const state = KEPT[step.status];
    if (state) kept.push({ step, state });
    else toRun.push(step);
  }
  return { toRun, kept };
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

/**
 * A run request may name its goal twice: `goal` beside a plan that has its own. This says when the
 * two disagree, for every host that takes such a request (`POST /v1/runs`, `LocalRunner.start`).
 */
import { isRecord } from './model';
import { textStart } from '../text-cut';

/**
 * Why a request's `goal` cannot stand beside its plan: the plan names a goal of its own, another
 * text. Which one the run pursues would be a guess, so neither is taken; the same text in both, or
 * a plan without a goal, is fine (the request's goal then names the run).
 * @example differingGoals('Summarise', { goal: 'Translate', steps: [] }) // '"goal" ("Summarise") …'
 */
export function differingGoals(goal: unknown, plan: unknown): string | undefined {
  if (typeof goal !== 'string' || !isRecord(plan) || typeof plan.goal !== 'string') return undefined;
  const own = plan.goal.trim();
  if (own === '' || goal.trim() === '' || own === goal.trim()) return undefined;
  return `"goal" (${quoted(goal)}) and the plan's own "goal" (${quoted(plan.goal)}) differ: send one of them, or the same text in both`;
}

function quoted(text: string): string {
  const t = text.trim();
  return JSON.stringify(t.length > 60 ? `${textStart(t, 59)}…` : t);
}

/**
 * JSON texts already made for plans, reused when the plan is stored. A new run's plan reaches its
 * object as text (a 100,000-step plan is ~10 MB of it); storing the plan and the event that authors it
 * would serialise it twice more.
 */
import type { RunEvent } from '../engine/events';

const texts = new WeakMap<object, string>();

/** Remembers `text` as the JSON of `plan` (which must not change afterwards). */
export function rememberPlanText(plan: object, text: string): void {
  texts.set(plan, text);
}

/** A value's JSON: the remembered text for a plan, else serialised. */
export function jsonOf(value: unknown): string {
  const known = typeof value === 'object' && value !== null ? texts.get(value) : undefined;
  return known ?? JSON.stringify(value ?? null);
}

/** An event's JSON, with a remembered text spliced in for its plan. */
export function eventJson(e: RunEvent): string {
  if (e.event_type !== 'PlanAuthored' && e.event_type !== 'PlanUpdated') return JSON.stringify(e);
  const plan = texts.get(e.payload.plan);
  if (plan === undefined) return JSON.stringify(e);
  const mark = `\u0000plan-text\u0000`;
  const text = JSON.stringify({ ...e, payload: { ...e.payload, plan: mark } });
  const at = text.indexOf(JSON.stringify(mark));
  return text.slice(0, at) + plan + text.slice(at + JSON.stringify(mark).length);
}

/** How one version of a plan differs from another: the steps it changed, and whether it says anything new. */
import type { Plan } from '../plan/model';
import { deepEqual } from '../plan/diff';

/**
 * The ids of steps added or changed from one plan to the next, by content: a plan read back from
 * storage lists a step's fields in its schema's order, not as they were written, and is the same plan.
 */
export function changedSteps(before: Plan | null, after: Plan): string[] {
  const old = new Map(before?.steps.map((st) => [st.id, st]) ?? []);
  return after.steps
    .filter((st) => {
      const was = old.get(st.id);
      return was === undefined || !deepEqual(was, st);
    })
    .map((st) => st.id);
}

/**
 * Whether two versions of a plan say the same thing: the same steps in the same order, and the same
 * goal, strategy, exit criteria and metadata (a TEA node's `with:` lives there). Their id, version and
 * creation time do not count.
 */
export function samePlanContent(a: Plan, b: Plan): boolean {
  const content = ({ id: _id, version: _v, created_at: _at, ...rest }: Plan) => rest;
  return deepEqual(content(a), content(b));
}

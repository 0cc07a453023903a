/**
 * The dependencies a plan's references imply beyond the ones its steps list: `{{ steps.a.output }}`
 * makes `a` a dependency, as does reading a state path another step writes. Reads of a run and of a
 * plan version show them beside the plan, so a caller sees every edge the scheduler honours.
 */
import { buildGraph, type PlanGraph } from './graph';
import type { PlanStep } from './model';

/**
 * Step id → the dependencies its references add (steps with none are left out), in plan order.
 * @example inferredDependencies([a, { ...b, parameters: { x: '{{ steps.a.output }}' } }]) // { b: ['a'] }
 */
export function inferredDependencies(
  steps: readonly PlanStep[],
  graph: PlanGraph = buildGraph(steps),
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (let i = 0; i < steps.length; i++) {
    const listed = steps[i]!.dependencies ?? [];
    const all = graph.deps[i] ?? [];
    const explicit = new Set(listed);
    const added = all.filter((d) => !explicit.has(d));
    if (added.length > 0) out[steps[i]!.id] = added;
  }
  return out;
}

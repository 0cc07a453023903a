/**
 * Per-plan measures behind seed 000's success criteria that can be read off a plan alone: whether
 * its declared dependencies are necessary and sufficient, and how many of its steps are atomic.
 * Pure: plans in, numbers out.
 */
import type { ToolRegistry } from '../../src/executor/registry';
import { buildGraph } from '../../src/plan/graph';
import type { Plan, PlanStep } from '../../src/plan/model';
import type { EvalGoal } from './goals';

/** `[step, dependency]`: step ids. */
export type Edge = readonly [string, string];

export type DependencyCheck = {
  /** No unnecessary and no missing dependency. */
  accurate: boolean;
  /** Declared, but neither data flow nor the goal's ordering calls for them, even transitively. */
  unnecessary: Edge[];
  /** Called for by data flow or the goal's ordering, but not reachable through declared dependencies. */
  missing: Edge[];
};

/**
 * Compares a plan's declared `dependencies` with the ones it needs: data flow (a step reading
 * another's output or a state path it writes — found in the references, as the run's graph finds
 * them) and the goal's `order` pairs.
 * - Sufficient: every needed predecessor is an ancestor through declared dependencies.
 * - Necessary: every declared dependency is a needed predecessor, directly or transitively — a
 *   redundant edge the needs already imply costs no parallelism, a spurious one does.
 * @example checkDependencies(plan, goal).missing // [['format', 'search']]
 */
export function checkDependencies(plan: Plan, goal: Pick<EvalGoal, 'order'>): DependencyCheck {
  const steps = plan.steps;
  const needed = neededPredecessors(steps, goal);
  const declared = steps.map((s) => s.dependencies);
  const declaredAncestors = closure(steps, declared);
  const neededAncestors = closure(steps, needed);
  const unnecessary: Edge[] = [];
  const missing: Edge[] = [];
  steps.forEach((step, i) => {
    for (const dep of declared[i]!) if (!neededAncestors[i]!.has(dep)) unnecessary.push([step.id, dep]);
    for (const dep of needed[i]!) if (!declaredAncestors[i]!.has(dep)) missing.push([step.id, dep]);
  });
  return { accurate: unnecessary.length === 0 && missing.length === 0, unnecessary, missing };
}

/** Per step: the ids it must come after — data-flow sources, then what the goal's order puts first. */
export function neededPredecessors(steps: readonly PlanStep[], goal: Pick<EvalGoal, 'order'>): string[][] {
  // Dependencies stripped, the graph holds exactly what the references imply.
  const graph = buildGraph(steps.map((s) => ({ ...s, dependencies: [] })));
  return steps.map((step, i) => {
    const need = new Set(graph.deps[i]!.filter((id) => id !== step.id));
    for (const [before, after] of goal.order ?? []) {
      if (step.action !== after) continue;
      for (const other of steps) if (other.action === before && other.id !== step.id) need.add(other.id);
    }
    return [...need];
  });
}

/** Per step: every id reachable through `edges` (ids not in the plan are ignored). */
function closure(steps: readonly PlanStep[], edges: readonly (readonly string[])[]): Set<string>[] {
  const index = new Map(steps.map((s, i) => [s.id, i]));
  return steps.map((_, i) => {
    const seen = new Set<string>();
    const stack = [...edges[i]!];
    while (stack.length > 0) {
      const id = stack.pop()!;
      const j = index.get(id);
      if (seen.has(id) || j === undefined) continue;
      seen.add(id);
      stack.push(...edges[j]!);
    }
    return seen;
  });
}

/**
 * The step atomicity proxy: one tool call (a registered action, no sub-plan) that says what it
 * does — a description of its own (normalisation fills in the action name when there is none) or
 * an `expected_output`.
 * @example isAtomic({ id: 'a', action: 'eval.calc', description: 'add', parameters: {}, dependencies: [] }, tools) // true
 */
export function isAtomic(step: PlanStep, tools: ToolRegistry): boolean {
  if (step.subplan != null || !tools.has(step.action)) return false;
  const described = step.description.trim() !== '' && step.description !== step.action;
  return described || (step.expected_output ?? '').trim() !== '';
}

/** How many of a plan's steps are atomic. */
export function atomicity(plan: Plan, tools: ToolRegistry): { atomic: number; steps: number } {
  return { atomic: plan.steps.filter((s) => isAtomic(s, tools)).length, steps: plan.steps.length };
}

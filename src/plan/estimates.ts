/**
 * Plan estimates (SPEC §2): critical path, maximum width, tokens — so a caller sees cost and
 * duration before approving. Linear in plan size.
 */
import { buildGraph, orderOf } from './graph';
import type { PlanGraph } from './graph';
import type { Plan, PlanStep } from './model';
import type { AnyTool, ToolRegistry } from '../executor/registry';

/** Expected duration of a step whose tool has neither latency history nor `estimated_latency_ms`. */
export const DEFAULT_STEP_LATENCY_MS = 1000;

export type Estimates = {
  /** Steps of this plan (sub-plan steps not included; see `total_step_count`). */
  step_count: number;
  /** Steps including those of every sub-plan. */
  total_step_count: number;
  /** The longest chain of dependent steps by expected duration, first step first. */
  critical_path: { steps: string[]; duration_ms: number };
  /** The most steps that can run at once (largest layer when steps are layered by dependency depth). */
  max_width: number;
  /**
   * Sum over steps of `estimated_tokens`, else the tool's `estimated_tokens`, else 0, sub-plans
   * included; when that is 0 the plan's own `estimated_total_tokens`, if given.
   */
  estimated_tokens: number;
};

/**
 * Estimates a plan from its graph. A step's expected duration is `latencyHistory[action]`, else the
 * tool's `estimated_latency_ms`, else {@link DEFAULT_STEP_LATENCY_MS}; a step with a sub-plan takes
 * its sub-plan's critical path instead. A cyclic graph gets estimates over its acyclic part.
 * @example estimatePlan(plan, buildGraph(plan.steps), tools).critical_path.duration_ms
 */
export function estimatePlan(
  plan: Plan,
  graph: PlanGraph,
  tools: ToolRegistry,
  latencyHistory: Record<string, number> = {},
): Estimates {
  const steps = plan.steps;
  const n = steps.length;
  const duration = new Float64Array(n);
  let tokens = 0;
  let total = n;
  for (let i = 0; i < n; i++) {
    const step = steps[i]!;
    const tool = tools.get(step.action);
    if (step.subplan) {
      const sub = estimatePlan(step.subplan, buildGraph(step.subplan.steps), tools, latencyHistory);
      duration[i] = sub.critical_path.duration_ms;
      tokens += sub.estimated_tokens;
      total += sub.total_step_count;
    } else {
      duration[i] = stepLatency(step, tool, latencyHistory);
    }
    // A step with a sub-plan runs the sub-plan, not its action (the default llm.call when it names none).
    tokens += step.estimated_tokens ?? (step.subplan ? 0 : (tool?.estimated_tokens ?? 0));
  }
  if (tokens === 0 && plan.estimated_total_tokens != null) tokens = plan.estimated_total_tokens;

  const topo = orderOf(graph);
  let order = topo.order;
  if (!topo.complete) {
    // Steps on a cycle have no finish time; give them one as if their unfinished deps were absent.
    order = order.slice();
    const placed = new Uint8Array(n);
    for (let k = 0; k < order.length; k++) placed[order[k]!] = 1;
    for (let i = 0; i < n; i++) if (placed[i] === 0) order.push(i);
  }
  const finish = new Float64Array(n);
  const level = new Int32Array(n);
  const via = new Int32Array(n).fill(-1);
  const done = new Uint8Array(n);
  const width: number[] = [];
  let last = -1;
  // Indexed loops: `for…of` allocates an iterator per loop, which adds up over 100k steps.
  for (let k = 0; k < order.length; k++) {
    const i = order[k]!;
    let before = -1;
    let depth = 0;
    const deps = graph.depIndex[i]!;
    for (let d = 0; d < deps.length; d++) {
      const j = deps[d]!;
      if (done[j] === 0) continue;
      if (before === -1 || finish[j]! > finish[before]!) before = j;
      if (level[j]! + 1 > depth) depth = level[j]! + 1;
    }
    via[i] = before;
    finish[i] = (before === -1 ? 0 : finish[before]!) + duration[i]!;
    level[i] = depth;
    done[i] = 1;
    width[depth] = (width[depth] ?? 0) + 1;
    if (last === -1 || finish[i] > finish[last]!) last = i;
  }

  const path: string[] = [];
  for (let i = last; i !== -1; i = via[i]!) path.push(graph.ids[i]!);
  path.reverse();
  let maxWidth = 0;
  for (const w of width) if (w !== undefined && w > maxWidth) maxWidth = w;
  return {
    step_count: n,
    total_step_count: total,
    critical_path: { steps: path, duration_ms: last === -1 ? 0 : finish[last]! },
    max_width: maxWidth,
    estimated_tokens: tokens,
  };
}

/** The parameters' own estimate (a sleep's `ms`), else history, else the tool's typical latency. */
function stepLatency(
  step: PlanStep,
  tool: Pick<AnyTool, 'estimated_latency_ms' | 'estimate_latency_ms'> | undefined,
  history: Record<string, number>,
): number {
  const fromParameters = tool?.estimate_latency_ms?.(step.parameters ?? {});
  if (typeof fromParameters === 'number' && Number.isFinite(fromParameters) && fromParameters >= 0)
    return fromParameters;
  const seen = Object.hasOwn(history, step.action) ? history[step.action] : undefined;
  return seen ?? tool?.estimated_latency_ms ?? DEFAULT_STEP_LATENCY_MS;
}

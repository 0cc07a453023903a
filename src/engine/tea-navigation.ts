/**
 * TEA graph runs: a workflow with conditions or loops is not a DAG, so its nodes are the plan's steps
 * with no dependencies, and the run goes from node to node. After a node settles, its navigation rules
 * (`goto`, `edges` with `condition:`, the next node in the list) are tried in order against the state
 * and the choice is recorded as `NodeEntered` — so replay and `/state?at=` see the same route. A node
 * with a false `condition:` is skipped and navigation goes on from it. A node entered more than
 * `max_iterations` times fails the run. After `__end__`, the nodes never entered are skipped and the
 * run completes as any other. Pure.
 */
import { evaluateCondition } from '../plan/jinja';
import { TEA_END, teaMetaOf, type TeaGraph, type TeaMeta } from '../plan/tea-meta';
import type { DecideContext } from './decide-context';
import { draft, type EventDraft } from './events';
import { isSettled } from './step-readiness';
import type { RunState } from './state';
import { teaContext } from './tea-context';

/**
 * The next navigation event of a TEA graph run, or null (not a graph run, or nothing to decide).
 * @example decideNavigation(state, ctx) // { type: 'NodeEntered', payload: { node: 'execute', from: 'plan', visit: 1 } }
 */
export function decideNavigation(state: RunState, ctx: DecideContext): EventDraft | null {
  const meta = teaMetaOf(state.plan);
  const graph = meta?.graph;
  if (!meta || !graph) return null;
  const at = state.nav_at;
  if (at === TEA_END) {
    for (const [id, rt] of state.steps) {
      if (rt.status === 'blocked')
        return draft('StepSkipped', { step_id: id, reason: 'not_reached' }, { step_id: id });
    }
    return null;
  }
  if (at === null) return enter(state, graph, graph.entry, null);
  const rt = state.steps.get(at);
  if (!rt) return null;
  const condition = graph.nodes[at]?.condition;
  if (rt.status === 'pending' && condition !== undefined && rt.retries_used === 0 && rt.retry_at === null) {
    const r = evaluateCondition(condition, teaContext(state, ctx.results, meta));
    if (!r.ok) return templateFailure(at, 'condition', condition, r.message);
    if (r.value === false)
      return draft(
        'StepSkipped',
        { step_id: at, reason: 'when_false', detail: `condition: ${condition}` },
        { step_id: at },
      );
    return null;
  }
  if (!isSettled(rt)) return null;
  return navigateFrom(state, ctx, meta, graph, at);
}

function navigateFrom(
  state: RunState,
  ctx: DecideContext,
  meta: TeaMeta,
  graph: TeaGraph,
  from: string,
): EventDraft {
  const rules = graph.nodes[from]?.next ?? [{ to: TEA_END }];
  const context = teaContext(state, ctx.results, meta);
  for (const rule of rules) {
    if (rule.if === undefined) return enter(state, graph, rule.to, from);
    const r = evaluateCondition(rule.if, context);
    if (!r.ok) return templateFailure(from, 'navigation condition', rule.if, r.message);
    if (r.value === true) return enter(state, graph, rule.to, from, rule.if);
  }
  const tried = rules.map((r) => r.if ?? 'always').join('; ');
  return draft('RunTerminated', {
    status: 'failed',
    reason: 'no_route',
    error: {
      code: 'no_route',
      message: `After node "${from}" no navigation condition held (${tried}); add a rule without a condition (goto: - to: <node>) or an edge to __end__`,
      retryable: false,
    },
  });
}

function enter(
  state: RunState,
  graph: TeaGraph,
  node: string,
  from: string | null,
  rule?: string,
): EventDraft {
  if (node === TEA_END) return draft('NodeEntered', { node, from, visit: 0 });
  const visits = state.steps.get(node)?.visit ?? 0;
  if (visits >= graph.max_iterations) {
    return draft('RunTerminated', {
      status: 'failed',
      reason: 'max_iterations',
      error: {
        code: 'max_iterations',
        message: `Node "${node}" would run a ${ordinal(visits + 1)} time, past max_iterations (${graph.max_iterations}): the loop through it did not end; fix its conditions or raise max_iterations at the workflow's top level`,
        retryable: false,
      },
    });
  }
  const payload = { node, from, visit: visits + 1 };
  return draft('NodeEntered', rule === undefined ? payload : { ...payload, rule }, { step_id: node });
}

function templateFailure(node: string, what: string, expr: string, message: string): EventDraft {
  return draft('RunTerminated', {
    status: 'failed',
    reason: 'template_error',
    error: {
      code: 'template_error',
      message: `Node "${node}": the ${what} "${expr}" failed: ${message}`,
      retryable: false,
    },
  });
}

/** 1st, 2nd, 3rd, 4th, …, 11th, 12th, 13th, 21st. */
function ordinal(n: number): string {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  const suffix = teen ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

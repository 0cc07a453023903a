/**
 * What a TEA template reads at run time, as TEA's yaml_templates.py builds it: `state` (every state
 * variable, the node results merged in), `variables`, `settings`, `secrets` (always empty here: a
 * secret reaches a tool only through `settings`, never a template's output), and edgeplan's `input`.
 * Plans run by `plan.execute` for a TEA workflow also see `subtask` (id, description, dependencies,
 * and `results`: the outputs of its dependencies) and `state.subtask_results` so far. Pure.
 */
import type { PlanStep } from '../plan/model';
import type { TeaMeta } from '../plan/tea-meta';
import type { ResultStore, RunState } from './state';

/**
 * The template context for a node (or a subtask) of a TEA workflow.
 * @example teaContext(state, results, meta, step).state.plan // the merged plan
 */
export function teaContext(
  state: RunState,
  results: ResultStore,
  meta: TeaMeta,
  step?: PlanStep,
): Record<string, unknown> {
  const vars: Record<string, unknown> = {};
  // A subtask sees the state of the workflow that runs it (its run's input), then its own run's.
  if (meta.subtasks && state.input !== null && typeof state.input === 'object')
    Object.assign(vars, state.input);
  for (const key of results.varKeys()) {
    Object.defineProperty(vars, key, {
      value: results.getVar(key).value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  const ctx: Record<string, unknown> = {
    state: vars,
    variables: meta.variables,
    settings: meta.settings,
    secrets: {},
    input: state.input,
  };
  if (meta.subtasks && step) {
    // TEA's subtask executor sees the state with `subtask_results` of the subtasks done so far.
    const done: Record<string, unknown> = {};
    for (const p of meta.preserved ?? []) if (typeof p.id === 'string') done[p.id] = p.result ?? null;
    for (const s of state.plan?.steps ?? []) {
      if (state.steps.get(s.id)?.status === 'completed')
        done[s.id] = contentOf(results.getOutput(s.id).value);
    }
    const base = vars.subtask_results;
    vars.subtask_results = { ...(base !== null && typeof base === 'object' ? base : {}), ...done };
    const dependencies = meta.dependencies?.[step.id] ?? step.dependencies;
    ctx.subtask = {
      id: step.id,
      description: step.description,
      dependencies,
      results: Object.fromEntries(dependencies.map((d) => [d, done[d] ?? null])),
    };
    ctx.current_subtask = ctx.subtask;
  }
  return ctx;
}

/** TEA keeps a subtask's `content` when its result has one (planning_actions.py). */
export function contentOf(v: unknown): unknown {
  return v !== null && typeof v === 'object' && 'content' in v ? v.content : v;
}

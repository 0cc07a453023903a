/**
 * Where a TEA node's result lands in state. TEA merges the dict an action returns into the state
 * (`plan.decompose` → `state.plan`, `plan.execute` → `state.subtask_results`, `state.plan_status`, …).
 * A plan step writes its whole result to one `output_path`, so the importer writes each node's result
 * to `state.<node name>` (or `state.<output>` when the node names one) and points later reads of the
 * keys the action is known to return at that result: after a `plan.decompose` node `plan_research`,
 * `{{ state.plan }}` reads `{{ state.plan_research.plan }}`. The keys are seed 001's return shapes.
 */

/** The state keys each known action's result provides (seed 001 "Returns"; llm.call: content, usage). */
export const ACTION_RESULT_KEYS: Readonly<Record<string, readonly string[]>> = {
  'plan.decompose': ['plan', 'planning_trace', 'plan_id', 'subtask_count', 'success'],
  'plan.execute': ['plan', 'subtask_results', 'plan_status', 'replan_count', 'planning_trace', 'success'],
  'plan.replan': ['plan', 'preserved_subtasks', 'new_subtasks', 'planning_trace', 'success'],
  'plan.status': ['status', 'progress', 'plan_id', 'goal', 'subtasks', 'success'],
  'llm.call': ['content', 'usage'],
};

/**
 * Parameters an action reads from state when the node leaves them out (seed 001: `plan` defaults to
 * `state.plan`; plan.replan also uses `subtask_results`, `failed_subtask`, `failure_reason`). A
 * plan's tools see only their parameters, so the importer passes these explicitly: a required one
 * always (it must be in state), an optional one when an earlier node writes it.
 */
export const ACTION_STATE_DEFAULTS: Readonly<
  Record<string, Readonly<Record<string, 'required' | 'optional'>>>
> = {
  'plan.execute': { plan: 'required' },
  'plan.replan': {
    plan: 'required',
    subtask_results: 'optional',
    failed_subtask: 'optional',
    failure_reason: 'optional',
  },
  'plan.status': { plan: 'required', subtask_results: 'optional' },
};

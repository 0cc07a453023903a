/**
 * Where a TEA node's result lands in state. TEA merges the dict an action returns into the state;
 * seed 001's planning actions "set these state variables": `plan.decompose` → `state.plan`,
 * `plan.execute` → `state.plan`, `state.subtask_results`, `state.plan_status`, `state.replan_count`, …
 *
 * - A node whose action is one of seed 001's planning actions ({@link MERGED_ACTIONS}) gets
 *   `output_path: "state"`: its result's keys are merged into state exactly as TEA does, so after
 *   the Complete Workflow Example the state holds `plan`, `subtask_results`, `plan_status`, … at
 *   the top level, and later templates read them as written (`{{ state.plan }}` stays as is).
 * - Any other action keeps its whole result in one key, `state.<node name>`, and later reads of
 *   the keys it is known to return are pointed at that result. For `llm.call`, which returns
 *   `{content, usage}`, a merge would leave the answer in a bare `state.content` that every later
 *   `llm.call` node overwrites (and leave `usage` beside the workflow's own keys); seed 001 names
 *   neither key, so `synthesize` leaves its answer in `state.synthesize.content`, and a template
 *   reading `{{ state.content }}` after it reads `{{ state.synthesize.content }}`. Actions whose
 *   results are not known to be objects (a merge of a string fails the step) are never merged.
 * - A node with `output: <key>` always writes its whole result to `state.<key>`, as in TEA.
 */

/** Seed 001's planning actions: each returns a dict of state variables, merged into state. */
export const MERGED_ACTIONS: ReadonlySet<string> = new Set([
  'plan.decompose',
  'plan.execute',
  'plan.replan',
  'plan.status',
]);

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

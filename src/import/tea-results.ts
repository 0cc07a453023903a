/**
 * Where a TEA node's result lands, as TEA's yaml_nodes.py does it (`_create_action_function`):
 *
 * - no `output:` — a result that is a dict is merged into the state (each key replaces that key); any
 *   other result becomes `{result: <value>}`, merged. So `plan.decompose` sets `state.plan`,
 *   `plan.execute` sets `plan`, `subtask_results`, `plan_status`, `replan_count`, and `llm.call` sets
 *   `content`, `usage`, … (`output_path: "state"`).
 * - `output: <key>` — the whole result goes to `state.<key>`, planning actions included
 *   (`output: plan` on plan.decompose puts `{plan, planning_trace, plan_id, …}` in `state.plan`; the
 *   planning actions accept such a wrapped plan wherever a plan goes).
 * - `output: {key: template}` — each template is rendered with `result` and the mapped keys merge.
 */

/**
 * TEA's planning actions read these from the state when a node leaves them out (planning_actions.py:
 * `plan or state.get("plan")`, plan.replan's `subtask_results` / `failed_subtask` / `failure_reason`).
 * The tools see only their parameters, so the importer writes the reads in.
 */
export const ACTION_STATE_DEFAULTS: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  'plan.execute': {
    plan: '{{ state.plan }}',
    subtask_results: '{{ state.subtask_results }}',
    // What the subtask executor's templates read: the workflow's state, variables and settings.
    workflow: { state: '{{ state }}', variables: '{{ variables }}', settings: '{{ settings }}' },
  },
  'plan.replan': {
    plan: '{{ state.plan }}',
    subtask_results: '{{ state.subtask_results }}',
    failed_subtask: '{{ state.failed_subtask }}',
    failure_reason: '{{ state.failure_reason }}',
  },
  'plan.status': { plan: '{{ state.plan }}' },
};

/** Parameters rendered later, not when the node runs: a subtask executor's (per subtask), a planner prompt's `{{ goal }}`. */
export const RAW_PARAMETERS: Readonly<Record<string, readonly string[]>> = {
  'plan.execute': ['subtask_executor'],
  'plan.decompose': ['prompt_template', 'planner.prompt_template'],
};

/** The planning actions of seed 001 (all of them merge their result into state unless `output:` says otherwise). */
export const MERGED_ACTIONS: ReadonlySet<string> = new Set([
  'plan.decompose',
  'plan.execute',
  'plan.replan',
  'plan.status',
]);

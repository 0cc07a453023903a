/**
 * Every numeric field of a run's config — the seed aliases too, which the OpenAPI document does not
 * name and the generated requests so never set — and a step's, as fixed cases: each set to each of
 * the numbers at the edges in a run that starts at once, half of them waiting for approval (whose
 * deadline comes from `approval.timeout_s`).
 */
import { EDGE_NUMBERS, jsonText, RawJson } from './hostile-json';

/** The numeric config fields (and their seed aliases) as paths into `config`; `step`: the plan's last step. */
export const CONFIG_NUMBERS = [
  ['max_parallel'],
  ['step_timeout'],
  ['retry_failed_steps'],
  ['retry_delay'],
  ['max_revisions'],
  ['revision_threshold'],
  ['token_budget'],
  ['max_steps'],
  ['max_depth'],
  ['approval', 'timeout_s'],
  ['stages', 0, 'max_tokens'],
  ['max_concurrent'],
  ['max_retries'],
  ['max_replans'],
  ['max_subtasks'],
  ['max_decomposition_depth'],
  ['step', 'timeout_ms'],
  ['step', 'retries'],
  ['step', 'estimated_tokens'],
] as const;

/** What each field is set to: the edge numbers, number text no double holds, and not numbers. */
export const CONFIG_VALUES: readonly unknown[] = [...EDGE_NUMBERS, new RawJson('1e999'), 'NaN', null];

const step = (id: string, deps: string[] = []) => ({
  id,
  action: 'demo.echo',
  parameters: { id },
  dependencies: deps,
});
const PLAN = { goal: 'fuzz', steps: [step('a'), step('b', ['a'])] };

/** The body of `POST /v1/runs` with `value` at `path` in its config (or its last step). */
export function configBody(path: readonly (string | number)[], value: unknown, approval: boolean): string {
  const config: Record<string, unknown> = { execution_mode: 'parallel', require_plan_approval: approval };
  const steps: Record<string, unknown>[] = [...PLAN.steps];
  const [first, second, third] = path;
  if (first === 'step') steps.push({ ...step('t', ['a']), [second!]: value });
  else if (first === 'approval') config.approval = { [second!]: value };
  else if (first === 'stages')
    Object.assign(config, { strategy: 'staged', stages: [{ name: 's', [third!]: value }] });
  else config[first!] = value;
  return jsonText({ plan: { ...PLAN, steps }, config });
}

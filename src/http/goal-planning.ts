/**
 * A run request's planning options — given beside `goal` (SPEC §8) or in `config.planning` — folded
 * into the run config, so the run's object plans and revises with them.
 */
import type { PlanningOptions, RunConfig } from '../plan/config';

/** The top-level planning fields of `POST /v1/runs` (seed-000 names included). */
export type GoalPlanningFields = {
  model?: string | undefined;
  planning_model?: string | undefined;
  temperature?: number | undefined;
  prompt_template?: string | undefined;
  planning_prompt?: string | undefined;
  prompt_template_id?: string | undefined;
  n_best?: number | undefined;
  success_criteria?: string | undefined;
  require_fallbacks?: boolean | undefined;
  structured_output?: boolean | undefined;
};

/**
 * `config` with the request's planning options; a field given beside `goal` wins over the same one in
 * `config.planning`.
 * @example withGoalPlanning({ model: 'gpt-4o', temperature: 0 }, config).planning // { model: 'gpt-4o', temperature: 0 }
 */
export function withGoalPlanning(fields: GoalPlanningFields, config: RunConfig): RunConfig {
  const given: PlanningOptions = {};
  const model = fields.model ?? fields.planning_model;
  if (model !== undefined) given.model = model;
  if (fields.temperature !== undefined) given.temperature = fields.temperature;
  const prompt = fields.prompt_template ?? fields.planning_prompt;
  if (prompt !== undefined) given.prompt_template = prompt;
  if (fields.prompt_template_id !== undefined) given.prompt_template_id = fields.prompt_template_id;
  if (fields.n_best !== undefined) given.n_best = fields.n_best;
  if (fields.success_criteria !== undefined) given.success_criteria = fields.success_criteria;
  if (fields.structured_output !== undefined) given.structured_output = fields.structured_output;
  const planning = { ...config.planning, ...given };
  return {
    ...config,
    ...(Object.keys(planning).length > 0 ? { planning } : {}),
    ...(fields.require_fallbacks !== undefined ? { require_fallbacks: fields.require_fallbacks } : {}),
  };
}

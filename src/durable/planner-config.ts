/** Whether this deployment can reach an LLM planner, and what to tell a caller when it cannot. */
import { LLM_NOT_CONFIGURED_MESSAGE } from '../executor/tools/openai-client';

/** The refusal of a revision (POST /replan) where no LLM is configured: what a goal's refusal says, too. */
export const PLANNER_NEEDED =
  `Revising a plan needs an LLM planner. ${LLM_NOT_CONFIGURED_MESSAGE} ` +
  'Locally: .dev.vars or `npm start -- --var OPENAI_BASE_URL:…`; deployed: `wrangler secret put OPENAI_API_KEY`.';

export function plannerConfigured(env: { OPENAI_API_KEY?: string; OPENAI_BASE_URL?: string }): boolean {
  return Boolean(env.OPENAI_API_KEY || env.OPENAI_BASE_URL);
}

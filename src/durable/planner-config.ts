/** Whether this deployment can reach an LLM planner, and what to tell a caller when it cannot. */
export const PLANNER_NEEDED =
  'This needs an LLM planner: set OPENAI_API_KEY (and optionally OPENAI_BASE_URL for any ' +
  'OpenAI-compatible endpoint, PLANNER_MODEL, PLANNER_FALLBACK_MODELS)';

export function plannerConfigured(env: { OPENAI_API_KEY?: string; OPENAI_BASE_URL?: string }): boolean {
  return Boolean(env.OPENAI_API_KEY || env.OPENAI_BASE_URL);
}

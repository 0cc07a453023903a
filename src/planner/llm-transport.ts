/**
 * The fetch planning's LLM calls go through when nothing is injected — a TEST SEAM.
 *
 * Workers-runtime tests run in the same isolate as the Worker, so they cannot hand a scripted fetch
 * to a request the way unit tests hand one to `planGoal`. They call `setLlmFetch(scripted)` before
 * the request and `setLlmFetch(null)` after it. Production code never sets it; with nothing set the
 * planner uses the global `fetch`.
 */

let override: typeof fetch | null = null;

/**
 * Routes the planner's LLM calls through `fn` (tests only); `null` restores the global fetch.
 * @example
 * setLlmFetch(scriptedEndpoint.fetch);
 * try { await api('POST', '/v1/plans', { goal }); } finally { setLlmFetch(null); }
 */
export function setLlmFetch(fn: typeof fetch | null): void {
  override = fn;
}

/** The fetch set by {@link setLlmFetch}, or `undefined` for the global one. */
export function llmFetch(): typeof fetch | undefined {
  return override ?? undefined;
}

/**
 * Runs an attempt the run's Durable Object has approved (`beginSteps`), in the queue consumer or inline
 * in the object: the registered tool, with the step-result cache, never throwing.
 */
import { toErrorInfo } from '../errors';
import type { StepOutcome } from '../engine/machine';
import { runAttempt } from '../executor/attempt';
import type { ToolRegistry } from '../executor/registry';

export type ApprovedAttempt = {
  run_id: string;
  step_id: string;
  attempt: number;
  action: string;
  parameters: Record<string, unknown>;
  idempotency_key: string;
  timeout_ms: number;
  /** The step's configured time limit, which a timeout's message names (absent from an older object). */
  limit_ms?: number;
};

export async function executeApproved(
  a: ApprovedAttempt,
  tools: ToolRegistry,
  env: Env,
  signal?: AbortSignal,
  /** What the tool fetches with (the consumer's counts its subrequests); global fetch when absent. */
  fetch?: typeof globalThis.fetch,
): Promise<StepOutcome> {
  const tool = tools.get(a.action);
  if (!tool) {
    const message = `No tool named "${a.action}" is registered (known: ${tools.names().join(', ')})`;
    return { success: false, error: { code: 'unknown_tool', message, retryable: false }, latency_ms: 0 };
  }
  try {
    return await runAttempt({
      tool,
      parameters: a.parameters,
      context: {
        runId: a.run_id,
        stepId: a.step_id,
        attempt: a.attempt,
        idempotencyKey: a.idempotency_key,
        env: env as unknown as Record<string, unknown>,
        ...(fetch ? { fetch } : {}),
      },
      timeoutMs: a.timeout_ms,
      ...(a.limit_ms !== undefined ? { limitMs: a.limit_ms } : {}),
      signal,
      cache: env.KV,
    });
  } catch (err) {
    return { success: false, error: toErrorInfo(err), latency_ms: 0 };
  }
}

/**
 * A run's tools as the eval hands them to the runner: every attempt counts as work going on for the
 * virtual clock, may be failed on purpose instead of running (failure injection), and is held to a
 * limit in real time whatever its step's timeout says.
 */
import { ToolError, type ErrorInfo } from '../../src/errors';
import { ToolRegistry, type AnyTool, type ToolContext } from '../../src/executor/registry';
import type { VirtualTime } from './virtual-time';

/** One attempt about to run, for {@link AttemptToolsOptions.intercept}. */
export type AttemptInfo = { step_id: string; attempt: number; action: string };

export type AttemptToolsOptions = {
  time: VirtualTime;
  /** Fails an attempt with this error instead of running its tool, when it returns one. */
  intercept?: ((attempt: AttemptInfo) => ErrorInfo | undefined) | undefined;
  /** Longest real time one attempt may take. */
  maxAttemptMs: number;
};

/**
 * A registry of the same tools (same names and schemas) wrapped for an eval run.
 * @example const tools = attemptTools(evalTools(), { time: new VirtualTime(), maxAttemptMs: 30_000 });
 */
export function attemptTools(tools: ToolRegistry, opts: AttemptToolsOptions): ToolRegistry {
  return new ToolRegistry(
    tools.list().map((tool): AnyTool => ({
      ...tool,
      run: (input: unknown, ctx: ToolContext) => opts.time.during(() => attempt(tool, input, ctx, opts)),
    })),
  );
}

async function attempt(
  tool: AnyTool,
  input: unknown,
  ctx: ToolContext,
  opts: AttemptToolsOptions,
): Promise<unknown> {
  const injected = opts.intercept?.({ step_id: ctx.stepId, attempt: ctx.attempt, action: tool.name });
  if (injected) throw new ToolError(injected.code, injected.message, { retryable: injected.retryable });
  const ms = opts.maxAttemptMs;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ToolError('timeout', `${tool.name} timed out after ${ms} ms`)), ms);
  });
  try {
    // The runner aborts the tool's signal once the attempt is over, so a tool cut off here stops.
    return await Promise.race([tool.run(input, ctx), limit]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

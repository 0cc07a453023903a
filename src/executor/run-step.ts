/**
 * Runs one tool call: validate the parameters, run with a deadline, validate and normalise the output.
 * Never throws — every failure comes back as an {@link ErrorInfo} with a stable code, because the
 * outcome is journaled and crosses RPC and queues as data (STYLE §7).
 */
import { expandSettingsParams, settingsEnvOf, withoutEnvNames } from '../plan/tea-settings';
import type { z } from 'zod';
import { toErrorInfo, type ErrorInfo } from '../errors';
import { issuesText } from '../issue-text';
import { jsonNestingDepth, MAX_NESTING_DEPTH } from '../nesting';
import type { AnyTool, ToolContext } from './registry';

/** Tokens a step spent, summed over every `reportTokens` call. */
export type TokenUsage = { prompt: number; completion: number };

/** The result of one attempt, as `ToolReturned` records it. */
export type StepOutcome =
  /** `cached`: served from the step-result cache instead of running the tool. */
  | { success: true; output: unknown; latency_ms: number; tokens?: TokenUsage; cached?: boolean }
  | { success: false; error: ErrorInfo; latency_ms: number; tokens?: TokenUsage };

/** The tool context minus the signal (executeTool makes its own), plus the attempt's deadline. */
export type ExecuteContext = Omit<ToolContext, 'signal'> & {
  /** Deadline for this attempt; the tool's signal aborts and the step fails with `timeout` after it. */
  timeoutMs: number;
  /**
   * The step's time limit as configured, which a timeout's message names: an attempt begun late (a
   * queue hop, a redelivery) has less than that left, and "timed out after 499 ms" for a step whose
   * limit is 500 ms names a figure nobody wrote. Defaults to `timeoutMs`.
   */
  limitMs?: number;
  /** Outer cancellation (the run was cancelled); the step fails with `cancelled`. */
  signal?: AbortSignal;
};

/** Longest delay setTimeout accepts; a larger timeout would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Executes `tool` once with `params`. A tool that ignores its abort signal still cannot hang the step:
 * the deadline wins the race and the tool's late result is dropped.
 * @example
 * const outcome = await executeTool(registry.get('demo.echo')!, { a: 1 },
 *   { runId, stepId, attempt: 1, idempotencyKey: `${runId}:${stepId}`, env, timeoutMs: 60_000 });
 * if (outcome.success) console.log(outcome.output);
 */
export async function executeTool(
  tool: AnyTool,
  params: Record<string, unknown>,
  ctx: ExecuteContext,
): Promise<StepOutcome> {
  const started = Date.now();
  let tokens: TokenUsage | undefined;
  const finish = (result: { output: unknown } | { error: ErrorInfo }): StepOutcome => {
    const latency_ms = Math.max(0, Date.now() - started);
    const base =
      'error' in result
        ? { success: false as const, error: result.error, latency_ms }
        : { success: true as const, output: result.output, latency_ms };
    return tokens ? { ...base, tokens } : base;
  };

  // A TEA workflow's `${VAR}` settings get their values only now (never in the plan or the events);
  // a tool that starts a child run (or stores what it is given) passes them on as written, for the
  // child's tools to expand.
  const kept = tool.passesSettingsOn;
  const given = kept === true ? withoutEnvNames(params) : expandSettingsParams(params, ctx.env, kept ?? []);
  const input = tool.input.safeParse(given);
  if (!input.success) {
    const message = `Invalid parameters for ${tool.name}: ${formatIssues(input.error)}`;
    return finish({ error: fail('invalid_parameters', message) });
  }

  const { timeoutMs, limitMs = timeoutMs, signal: outer, ...rest } = ctx;
  // Never start a side effect for a step that is already cancelled.
  if (outer?.aborted) return finish({ error: abortInfo(tool, outer, limitMs) });
  const controller = new AbortController();
  // The deadline settles only when the step is stopped (timeout or cancel): a step that finishes in
  // time pays for no abort, no DOMException and no rejection (a burst of 1,000 steps spent ~10% of
  // its CPU on them).
  let stopStep!: (reason: unknown) => void;
  const deadline = new Promise<never>((_, reject) => {
    stopStep = (reason) => {
      if (controller.signal.aborted) return;
      controller.abort(reason);
      reject(new StepAborted(abortInfo(tool, controller.signal, limitMs)));
    };
  });
  deadline.catch(() => {}); // settled by the race, or after the step when nobody is listening
  const onOuterAbort = () => stopStep(outer?.reason);
  outer?.addEventListener('abort', onOuterAbort, { once: true });
  const timer =
    Number.isFinite(timeoutMs) && timeoutMs > 0
      ? setTimeout(
          () => stopStep(new DOMException(`Timed out after ${limitMs} ms`, 'TimeoutError')),
          Math.min(timeoutMs, MAX_TIMER_MS),
        )
      : undefined;

  const toolCtx: ToolContext = {
    ...rest,
    settingsEnv: settingsEnvOf(params),
    signal: controller.signal,
    reportTokens: (t) => {
      tokens = {
        prompt: (tokens?.prompt ?? 0) + t.prompt,
        completion: (tokens?.completion ?? 0) + t.completion,
      };
      ctx.reportTokens?.(t);
    },
  };

  try {
    const running = (async () => (await tool.run(input.data, toolCtx)) as unknown)();
    running.catch(() => {}); // a late failure after the deadline has nobody to report to
    const raw = await Promise.race([running, deadline]);
    return finish(normaliseOutput(tool, raw));
  } catch (err) {
    return finish({ error: err instanceof StepAborted ? err.info : toErrorInfo(err) });
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    outer?.removeEventListener('abort', onOuterAbort);
    // A tool that lost the race was told to stop when the deadline fired (stopStep); one that won it
    // has settled, so there is nothing left to abort.
  }
}

function abortInfo(tool: AnyTool, signal: AbortSignal, limitMs: number): ErrorInfo {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name === 'TimeoutError') {
    return fail('timeout', `${tool.name} timed out after ${limitMs} ms`, true);
  }
  const why =
    reason instanceof Error ? `: ${reason.message}` : typeof reason === 'string' ? `: ${reason}` : '';
  return fail('cancelled', `${tool.name} was cancelled${why}`);
}

/**
 * The output as it will read back from storage (a JSON round trip, `undefined` as `null`), or why it
 * cannot be stored: it fails the tool's output schema, is not JSON, or nests too deeply.
 */
function normaliseOutput(tool: AnyTool, raw: unknown): { output: unknown } | { error: ErrorInfo } {
  let value: unknown = raw;
  if (tool.output) {
    const parsed = (tool.output as z.ZodType).safeParse(raw);
    if (!parsed.success) {
      return {
        error: fail(
          'invalid_output',
          `${tool.name} returned ${formatIssues(parsed.error)}`,
          // The call succeeded: calling again repeats what it did, so only a tool that says a repeat is
          // harmless (idempotent) and may answer differently (not deterministic) is asked again.
          tool.idempotent && !tool.deterministic,
        ),
      };
    }
    value = parsed.data;
  }
  try {
    const text = JSON.stringify(value ?? null) as string | undefined;
    if (text === undefined) return { output: null };
    // Storing, sending and reading an output all recurse into it: one nested thousands of levels deep
    // (a JSON response of `[[[[…`) overflowed the stack where the run's object records it, and the
    // step hung until its timeout, then did so again on every retry.
    const depth = jsonNestingDepth(text);
    if (depth > MAX_NESTING_DEPTH) {
      return {
        error: fail(
          'output_too_deep',
          `${tool.name} returned a value whose arrays and objects nest ${depth} levels deep; the limit is ${MAX_NESTING_DEPTH}`,
        ),
      };
    }
    return { output: JSON.parse(text) as unknown };
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return {
      error: fail('invalid_output', `${tool.name} returned a value that is not JSON-serialisable: ${why}`),
    };
  }
}

/** zod issues as `path: message; …` in plain English (issue-text.ts), paths as `messages[0].role`. */
export function formatIssues(error: z.ZodError): string {
  return issuesText(error.issues);
}

function fail(code: string, message: string, retryable = false): ErrorInfo {
  return { code, message, retryable };
}

/** The deadline's rejection, told apart from whatever the tool itself throws. */
class StepAborted extends Error {
  override readonly name = 'StepAborted';
  constructor(readonly info: ErrorInfo) {
    super(info.message);
  }
}

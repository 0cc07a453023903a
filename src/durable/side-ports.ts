/**
 * The run object's side-work ports (engine/side-work.ts): plans from the planning pipeline with the
 * Worker's bindings (KV templates, D1 provenance, the LLM settings), and the LLM judge of outputs
 * against `expected_output`. Every model call is bounded by the run's `planning_timeout_s`.
 */
import type { TokenCount } from '../engine/events';
import type { SidePorts } from '../engine/side-work';
import type { RunState } from '../engine/state';
import type { ToolRegistry } from '../executor/registry';
import { createOpenAIClient, readLlmConfig, toLlmError } from '../executor/tools/openai-client';
import { toErrorInfo, ToolError, type ErrorInfo } from '../errors';
import { readCompletion } from '../planner/completion-shape';
import { parseVerdict } from '../planner/judge-verdict';
import { llmFetch } from '../planner/llm-transport';
import { planningProvider } from '../planner/planning-provider';
import { D1ProvenanceStore } from '../planner/provenance-d1';
import { secretsOf } from '../planner/redact';
import { plannerDepsFor } from '../planner/worker-deps';
import { plannerConfigured } from './planner-config';
import type { Spent } from './side-work-journal';
import { TallyingProvenance } from '../planner/tallying-provenance';

const ids = {
  id: (p: string) => `${p}_${crypto.randomUUID().replaceAll('-', '')}`,
  uuid: () => crypto.randomUUID(),
};

/**
 * `onAttempt`: told each planning call's tokens as its attempt is recorded (planner/tallying-provenance.ts), so that
 * a planning cut short by a crash still counts the calls it made.
 */
export function workerSidePorts(
  env: Env,
  tools: ToolRegistry,
  state: RunState,
  onAttempt?: (tokens: Spent) => void,
): SidePorts {
  const timeoutMs = state.config.planning_timeout_s * 1000;
  const stored = new D1ProvenanceStore(env.DB, { runId: state.run_id });
  // A call that fails in transit is tried twice more with backoff before the pipeline moves on;
  // every attempt is filed under the run, for its planning trace.
  const deps = plannerDepsFor(
    env,
    { tools, clock: { now: () => new Date() }, ids },
    { timeoutMs, llmRetries: 2, provenance: onAttempt ? new TallyingProvenance(stored, onAttempt) : stored },
  );
  return {
    planner: planningProvider(deps),
    ...(plannerConfigured(env)
      ? { judge: (req) => judgeOutput(env, timeoutMs, req.expected, req.output, req.signal) }
      : {}),
  };
}

/**
 * The LLM judge (issue 5: "an LLM judge when one is configured"): does this output meet the step's
 * expected_output? Throws when it gets no answer; an answer without a verdict is `unanswered`, with
 * the tokens it cost. Either way the caller lets the output stand.
 */
async function judgeOutput(
  env: Env,
  timeoutMs: number,
  expected: string,
  output: unknown,
  signal: AbortSignal | undefined,
): Promise<
  { ok: boolean; reason: string; tokens?: TokenCount } | { unanswered: ErrorInfo; tokens?: TokenCount }
> {
  const client = createOpenAIClient(env, llmFetch(), { timeoutMs });
  const config = readLlmConfig(env)!;
  const res = await client
    .create(
      {
        model: config.model,
        temperature: 0,
        messages: [
          {
            role: 'system',
            content:
              'You check whether a step of a plan produced what it should. Answer with one JSON object {"ok": boolean, "reason": string} and nothing else.',
          },
          {
            role: 'user',
            content: `Expected output: ${expected}\n\nActual output (JSON): ${JSON.stringify(output).slice(0, 8000)}`,
          },
        ],
      },
      signal ? { signal } : {},
    )
    .catch((err: unknown) => {
      // The server's words reach the reflection event: with the key redacted (openai-client.ts).
      throw toLlmError(err, { model: config.model, baseURL: config.baseURL, secrets: secretsOf({ ...env }) });
    });
  // Read through zod: a base URL that serves a web page answers 2xx too.
  const read = readCompletion(res, config.model);
  if (!read.ok) {
    const code = read.kind === 'no_choices' ? 'llm_empty_response' : 'llm_invalid_response';
    const error = new ToolError(code, `The LLM judge got ${read.what} instead of a chat completion`, {
      retryable: false,
    });
    // A completion without choices (a content filter's block) still says what it cost: it counts.
    if (read.kind === 'no_choices' && (read.usage.prompt > 0 || read.usage.completion > 0))
      return { unanswered: toErrorInfo(error), tokens: read.usage };
    throw error;
  }
  const { prompt, completion } = read.usage;
  const spent = prompt > 0 || completion > 0 ? { tokens: read.usage } : {};
  try {
    return { ...parseVerdict(read.content), ...spent };
  } catch (err) {
    // The model answered, just not with a verdict: its call counts in the run's token usage.
    return { unanswered: toErrorInfo(err), ...spent };
  }
}

/**
 * One LLM planning attempt: call → parse → validate → provenance record → trace entry. The
 * pipeline decides what happens next; this only reports what happened.
 */
import type { ChatCompletionsClient } from '../executor/tools/chat-completions-client';
import type { ValidationResult } from '../plan/validate';
import type { Clock, IdSource } from '../plan/model';
import { validateCandidate } from './candidate';
import type { CandidateContext } from './candidate';
import { completePlanChat } from './chat';
import type { ChatAnswer, ChatAnswerOk, ChatMessage, FormatMode, TokenCount } from './chat';
import { parsePlannerOutput } from './parse';
import type { ParseResult } from './parse';
import { provenanceRun, type PlanningAttempt, type ProvenanceStore } from './provenance';
import { redactSecrets } from './redact';
import type { AttemptOutcome } from './reliability';
import { summarizeFindings } from './repair';
import type { TraceEntry } from './types';
import { log } from '../log';
import { textStart } from '../text-cut';

/** Largest prompt or answer (characters) stored per attempt; D1 rows stay well under their limit. */
const MAX_STORED_CHARS = 200_000;

/** What stays the same across the attempts of one planning request. */
export type AttemptContext = {
  planningId: string;
  client: ChatCompletionsClient;
  baseURL: string | undefined;
  template: { id: string; version: string };
  temperature: number | undefined;
  schema: Record<string, unknown>;
  candidate: CandidateContext;
  provenance: ProvenanceStore | undefined;
  secrets: readonly string[];
  now: () => number;
  clock: Clock;
  ids: IdSource;
  signal: AbortSignal | undefined;
  /** Retries of a call that failed in transit. */
  retries: number;
  /** The next attempt's `seq` (1, 2, …). */
  nextSeq: () => number;
};

/** What one attempt asks. */
export type AttemptSpec = {
  model: string;
  messages: ChatMessage[];
  retry: number;
  candidate: number;
  mode: FormatMode;
};

export type AttemptResult = {
  answer: ChatAnswer;
  /** The answer's text (empty when the call failed). */
  raw: string;
  parse: ParseResult | null;
  validation: ValidationResult | null;
  outcome: AttemptOutcome;
  trace: TraceEntry;
};

/** Makes one attempt and records it. */
export async function runAttempt(ctx: AttemptContext, spec: AttemptSpec): Promise<AttemptResult> {
  const seq = ctx.nextSeq();
  const answer = await completePlanChat({
    client: ctx.client,
    baseURL: ctx.baseURL,
    model: spec.model,
    messages: spec.messages,
    temperature: ctx.temperature,
    schema: ctx.schema,
    mode: spec.mode,
    signal: ctx.signal,
    retries: ctx.retries,
    now: ctx.now,
    secrets: ctx.secrets,
  });
  const raw = answer.ok ? answer.content : '';
  let parse: ParseResult | null = null;
  let validation: ValidationResult | null = null;
  let outcome: AttemptOutcome;
  let message: string | undefined;
  if (!answer.ok) {
    outcome = 'call_error';
    message = `${answer.error.code}: ${answer.error.message}`;
  } else {
    parse =
      raw.trim() === '' && answer.refusal
        ? { ok: false, error: `The model refused: ${answer.refusal}` }
        : parsePlannerOutput(raw);
    if (!parse.ok) {
      outcome = 'parse_error';
      message = explainUnreadable(parse.error, raw, answer);
    } else {
      validation = validateCandidate(parse.plan, ctx.candidate);
      outcome = validation.valid ? 'ok' : 'invalid';
      if (!validation.valid) message = summarizeFindings(validation.errors);
    }
  }

  const trace = await recordAttempt(ctx, spec, {
    seq,
    mode: answer.mode,
    raw: answer.ok ? raw : null,
    outcome,
    message,
    ...(answer.ok ? {} : { error_code: answer.error.code }),
    parse,
    validation,
    usage: answer.usage,
    latency_ms: answer.latency_ms,
  });
  return { answer, raw, parse, validation, outcome, trace };
}

/** What happened in an attempt, for {@link recordAttempt}. */
export type AttemptFacts = {
  seq: number;
  mode: FormatMode;
  /** The answer's text; null when the call failed. */
  raw: string | null;
  outcome: AttemptOutcome;
  message: string | undefined;
  /** A call error's code. */
  error_code?: string | undefined;
  parse: ParseResult | null;
  validation: ValidationResult | null;
  usage: TokenCount;
  latency_ms: number;
};

/**
 * Stores an attempt's provenance and returns its trace entry. A provenance write that fails is
 * logged, not thrown: losing an audit row must not lose the plan.
 */
export async function recordAttempt(
  ctx: AttemptContext,
  spec: Pick<AttemptSpec, 'model' | 'messages' | 'retry' | 'candidate'>,
  facts: AttemptFacts,
): Promise<TraceEntry> {
  const { seq, outcome, message, parse, validation } = facts;
  const attempt: PlanningAttempt = {
    id: ctx.ids.id('patt'),
    planning_id: ctx.planningId,
    seq,
    model: spec.model,
    temperature: ctx.temperature ?? null,
    template_id: ctx.template.id,
    template_version: ctx.template.version,
    retry: spec.retry,
    candidate: spec.candidate,
    response_format: facts.mode,
    prompt: cap(redactSecrets(JSON.stringify(spec.messages), ctx.secrets)),
    raw_output: facts.raw === null ? null : cap(redactSecrets(facts.raw, ctx.secrets)),
    outcome,
    error: outcome === 'call_error' || outcome === 'parse_error' ? (message ?? null) : null,
    parse_format: parse?.ok ? parse.format : null,
    findings: validation?.errors ?? [],
    prompt_tokens: facts.usage.prompt,
    completion_tokens: facts.usage.completion,
    latency_ms: facts.latency_ms,
    plan_id: outcome === 'ok' ? (validation?.plan?.id ?? null) : null,
    strategy: ctx.candidate.state.strategy ?? 'flat',
    created_at: ctx.clock.now().toISOString(),
    ...(facts.usage.estimated ? { tokens_estimated: true as const } : {}),
  };
  if (ctx.provenance) {
    await ctx.provenance.recordAttempt(attempt).catch((err: unknown) => {
      log(
        'planning_provenance_not_stored',
        `planning ${ctx.planningId}: provenance for attempt ${seq} not stored`,
        { ...provenanceRun(ctx.provenance), error: err },
      );
    });
  }

  const trace: TraceEntry = {
    planner: 'llm',
    outcome,
    seq,
    attempt_id: attempt.id,
    model: spec.model,
    retry: spec.retry,
    candidate: spec.candidate,
    response_format: facts.mode,
    tokens: facts.usage,
    latency_ms: facts.latency_ms,
  };
  if (message !== undefined) trace.message = redactSecrets(message, ctx.secrets);
  if (facts.error_code !== undefined) trace.error_code = facts.error_code;
  if (validation && !validation.valid) trace.findings = validation.errors;
  return trace;
}

/**
 * A parse error with what the server said about why the answer is unreadable: it stopped at the
 * output token limit (`finish_reason: "length"`), or it held only reasoning and no content — so the
 * user knows to raise the limit (or pick a model that plans in fewer tokens) rather than blame the prompt.
 */
export function explainUnreadable(
  error: string,
  raw: string,
  answer: Pick<ChatAnswerOk, 'finish_reason' | 'reasoning_chars'>,
): string {
  const reasoningOnly =
    raw.trim() === '' && answer.reasoning_chars > 0
      ? `The answer held no content, only ${answer.reasoning_chars} characters of reasoning (reasoning_content). `
      : '';
  if (answer.finish_reason !== 'length') return `${reasoningOnly}${error}`;
  return (
    `${reasoningOnly}The answer stopped at the model's output token limit (finish_reason "length") after ` +
    `${raw.length} characters, so it is cut off — raise the server's output limit (Ollama: num_predict and num_ctx; ` +
    `vLLM: --max-model-len) or use a model that plans in fewer tokens. ${error}`
  );
}

function cap(text: string): string {
  return text.length > MAX_STORED_CHARS
    ? `${textStart(text, MAX_STORED_CHARS)}… (cut at ${MAX_STORED_CHARS} characters)`
    : text;
}

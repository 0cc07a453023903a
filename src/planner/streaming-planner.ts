/**
 * The streaming LLM planner (seed 003 NDJSON; SPEC §4 "Streaming execution"): the model is asked
 * for one `{"type":"step","step":{…}}` line per step, and each step is validated the moment its line
 * arrives — together with the steps before it, so a step may only depend on steps already streamed
 * and the graph stays acyclic by construction — and yielded at once, ready to dispatch. The whole
 * plan follows in `{finish: {plan}}`.
 *
 * A stream that fails before any step was yielded falls back to the whole pipeline (repairs, other
 * models, rules), yielded the same way. Once steps have been yielded they may be running, so a later
 * failure rejects with `planning_failed` naming the accepted steps: the caller re-plans from there.
 */
import { EdgeplanError, toErrorInfo } from '../errors';
import { readLlmConfig, toLlmError } from '../executor/tools/openai-client';
import type { ValidationResult } from '../plan/validate';
import { validateCandidate } from './candidate';
import type { ChatMessage, TokenCount } from './chat';
import type { PlannerState, PlanYield, StreamingPlanner } from './contracts';
import { readChunk } from './completion-shape';
import { LineSplitter } from './line-splitter';
import { recordAttempt } from './llm-attempt';
import { stampPlan } from './outcome';
import { parsePlannerOutput, readNdjsonLine } from './parse';
import { planFromState } from './pipeline';
import type { PlanOptions } from './pipeline';
import { attemptContext, candidateContext } from './planning-setup';
import type { AttemptOutcome } from './reliability';
import { summarizeFindings } from './repair';
import { estimateUsage } from './token-estimate';
import { resolveTemplate } from './template-store';
import { renderPrompt } from './templates';
import { ThinkFilter } from './think-filter';
import type { PlannerDeps, TraceEntry } from './types';

/** Characters read after the finish line while waiting for the usage chunk. */
const MAX_AFTER_FINISH = 2_000;

/** How a stream ended, for the provenance record. */
type StreamEnd = {
  outcome: AttemptOutcome;
  message?: string;
  /** A call error's code. */
  error_code?: string;
  validation: ValidationResult | null;
};

/**
 * @example
 * for await (const item of new LlmStreamingPlanner(deps).plan(state)) {
 *   if (isStepYield(item)) dispatch(item); else if ('finish' in item) authored(item.finish.plan);
 * }
 */
export class LlmStreamingPlanner implements StreamingPlanner {
  readonly #deps: PlannerDeps;
  readonly #options: PlanOptions;

  constructor(deps: PlannerDeps, options: PlanOptions = {}) {
    this.#deps = deps;
    this.#options = options;
  }

  async *plan(state: PlannerState): AsyncIterable<PlanYield> {
    const deps = this.#deps;
    const llm = readLlmConfig(deps.env);
    if (!llm) {
      yield* this.#whole(state);
      return;
    }
    const template = await resolveTemplate(deps.templates, this.#options.template ?? {});
    if (!template.ok) throw new EdgeplanError('invalid_request', template.message);

    const planningId = deps.ids.id('planning');
    const candidate = candidateContext(
      state,
      deps,
      state.plan ? undefined : (this.#options.plan_id ?? deps.ids.id('plan')),
    );
    const prompt = renderPrompt(template.template, state, { streaming: true });
    const temperature = this.#options.temperature;
    const ctx = attemptContext({ planningId, llm, prompt, temperature, candidate, deps });
    const model = this.#options.model ?? llm.model;
    const messages: ChatMessage[] = [
      { role: 'system', content: prompt.system },
      { role: 'user', content: prompt.user },
    ];

    const seq = ctx.nextSeq();
    const start = ctx.now();
    const accepted: unknown[] = [];
    const header: Record<string, unknown> = {};
    let raw = '';
    let usage: TokenCount = { prompt: 0, completion: 0 };
    /** The server took the request (its headers came): the prompt is spent, whatever follows. */
    let started = false;
    let usageSeen = false;
    /** Every character of content that streamed, the part read after the finish line included. */
    let streamed = 0;
    let end: StreamEnd | null = null;
    let last: ValidationResult | null = null;
    /** The model could not be used at all (see UNUSABLE): the whole pipeline does not ask it again. */
    let unusable = false;

    const finishRecord = async (result: StreamEnd): Promise<TraceEntry> =>
      recordAttempt(
        ctx,
        { model, messages, retry: 0, candidate: 0 },
        {
          seq,
          mode: 'text',
          raw: result.outcome === 'call_error' && raw === '' ? null : raw,
          outcome: result.outcome,
          message: result.message,
          error_code: result.error_code,
          parse: null,
          validation: result.validation,
          usage,
          latency_ms: ctx.now() - start,
        },
      );

    try {
      const stream = await ctx.client.stream(
        {
          model,
          messages,
          ...(temperature === undefined ? {} : { temperature }),
          stream_options: { include_usage: true },
        },
        { signal: ctx.signal },
      );
      started = true;
      const lines = new LineSplitter();
      const think = new ThinkFilter();
      // After the finish line the rest is read only for the usage chunk, and only briefly: a model
      // that keeps talking is cut off rather than waited for.
      let afterFinish = -1;
      // A line that looks like JSON but is not one before any step: the model is writing a whole
      // plan (pretty-printed JSON, say). The rest is read as text and parsed whole at the end.
      let wholeAnswer = false;
      reading: for await (const chunk of stream) {
        // Read through zod: servers send usage-only chunks without `choices`, content parts, nulls.
        const read = readChunk(chunk);
        if (read.usage) {
          usage = read.usage;
          usageSeen = true;
        }
        const text = read.text;
        streamed += text.length;
        if (afterFinish >= 0) {
          afterFinish += text.length;
          if (afterFinish > MAX_AFTER_FINISH) break;
          continue;
        }
        raw += text;
        if (wholeAnswer) continue;
        for (const pushed of lines.push(text)) {
          const line = think.take(pushed);
          if (line === null) continue;
          let step: ValidationResult | 'finish' | null;
          try {
            step = this.#take(line, accepted, header, candidate);
          } catch (err) {
            if (!(err instanceof StreamLineError) || accepted.length > 0) throw err;
            wholeAnswer = true;
            continue reading;
          }
          if (step === 'finish') {
            afterFinish = 0;
            continue reading;
          }
          if (step === null) continue;
          if (!step.valid) {
            end = { outcome: 'invalid', message: summarizeFindings(step.errors), validation: step };
            break reading;
          }
          last = step;
          yield step.plan!.steps.at(-1)!;
        }
      }
      if (afterFinish >= 0) lines.flush();
      if (wholeAnswer) {
        end = {
          outcome: 'parse_error',
          message: 'The stream held a whole answer, not step lines',
          validation: null,
        };
      } else if (!end) {
        for (const pushed of lines.flush()) {
          const line = think.take(pushed);
          if (line === null) continue;
          const step = this.#take(line, accepted, header, candidate);
          if (step === null || step === 'finish') continue;
          if (!step.valid)
            end = { outcome: 'invalid', message: summarizeFindings(step.errors), validation: step };
          else {
            last = step;
            yield step.plan!.steps.at(-1)!;
          }
        }
      }
    } catch (err) {
      if (err instanceof StreamLineError)
        end = { outcome: 'parse_error', message: err.message, validation: null };
      else {
        const info = toErrorInfo(toLlmError(err, { model, baseURL: llm.baseURL, secrets: ctx.secrets }));
        // A 404 is the model (or the URL) the server does not have: asked again, it says so again.
        if (UNUSABLE.has(info.code) || (err as { status?: unknown } | null)?.status === 404) unusable = true;
        end = {
          outcome: 'call_error',
          message: `${info.code}: ${info.message}`,
          error_code: info.code,
          validation: null,
        };
      }
    }
    // A stream that ended before its usage chunk — cut off by us (an invalid step, a model talking on
    // after its finish line), a timeout or the connection — still spent tokens: they are estimated
    // from the text, marked `estimated`, and counted toward the run's usage and budget like any.
    if (started && !usageSeen) usage = estimateUsage(messages, streamed);
    if (!end && accepted.length === 0) {
      end = { outcome: 'parse_error', message: 'The stream held no step lines', validation: null };
    }

    // A model that answered with a whole JSON plan (pretty-printed, fenced, …) instead of NDJSON lines:
    // the plan is read from what streamed, not asked for again.
    if (end && accepted.length === 0 && end.outcome === 'parse_error' && raw.trim() !== '') {
      const whole = parsePlannerOutput(raw);
      const validation = whole.ok ? validateCandidate(whole.plan, candidate) : null;
      if (validation?.valid) {
        end = null;
        last = validation;
        yield* validation.plan!.steps;
      }
    }

    if (end) {
      const trace = await finishRecord(end);
      if (accepted.length === 0 || !last) {
        yield* this.#whole(state, {
          planning_id: planningId,
          after_seq: seq,
          trace: [trace],
          ...(unusable ? { skip_models: [model] } : {}),
        });
        return;
      }
      throw new EdgeplanError(
        'planning_failed',
        `The plan stream failed after ${accepted.length} accepted step${accepted.length === 1 ? '' : 's'}: ${end.message ?? end.outcome}`,
        {
          // `tokens`: what the stream spent, which the run counts though it failed.
          details: {
            planning_trace: [trace],
            accepted_steps: last.plan!.steps.map((s) => s.id),
            tokens: usage,
          },
          retryable: true,
        },
      );
    }
    const final = last!;
    const trace = await finishRecord({ outcome: 'ok', validation: final });
    const plan = stampPlan(final.plan!, state, {
      planningId,
      planner: 'llm',
      model,
      template: prompt.template,
    });
    if (trace.attempt_id) plan.metadata = { ...plan.metadata, attempt_id: trace.attempt_id };
    // What planning spent rides along, so the run can count it in its token usage.
    yield { finish: { plan, result: { tokens: usage } } };
  }

  /**
   * One line: `null` when it adds no step, `'finish'` at the end marker, else the validation of the
   * plan so far with the new step last. A line that looks like JSON and does not parse throws.
   */
  #take(
    line: string,
    accepted: unknown[],
    header: Record<string, unknown>,
    candidate: ReturnType<typeof candidateContext>,
  ): ValidationResult | 'finish' | null {
    const item = readNdjsonLine(line);
    if (item === null || item.kind === 'reasoning') return null;
    if (item.kind === 'finish') return 'finish';
    if (item.kind === 'invalid') throw new StreamLineError(item.error);
    if (item.kind === 'header') {
      Object.assign(header, item.fields);
      return null;
    }
    const result = validateCandidate({ ...header, steps: [...accepted, item.step] }, candidate);
    if (result.valid) accepted.push(item.step);
    return result;
  }

  /**
   * The whole pipeline, yielded as a stream, its tokens (those of the failed stream it continues
   * included: they start its trace) counted in the finish; its failure rejects with the outcome's code.
   */
  async *#whole(state: PlannerState, continues?: PlanOptions['continues']): AsyncIterable<PlanYield> {
    const out = await planFromState(state, { ...this.#options, continues }, this.#deps);
    const tokens: TokenCount = { prompt: out.tokens.prompt, completion: out.tokens.completion };
    if (!out.ok) {
      throw new EdgeplanError(out.error.code, out.error.message, {
        details: { ...out.error.details, tokens },
        retryable: out.error.retryable,
      });
    }
    yield* out.plan.steps;
    yield { finish: { plan: out.plan, result: { tokens } } };
  }
}

/** A streamed line that looks like JSON and does not parse. */
class StreamLineError extends Error {
  override readonly name = 'StreamLineError';
}

/**
 * Call errors that say the model cannot be used now, whatever is asked of it: asking it again for a
 * whole plan would spend another planning_timeout_s (or fail the same way) before the fallbacks.
 */
const UNUSABLE: ReadonlySet<string> = new Set([
  'timeout',
  'llm_unreachable',
  'llm_auth_failed',
  'llm_invalid_response',
]);

/**
 * The `llm` options an agent or `pipelineProvider` is given (an OpenAI-compatible endpoint), and
 * their check: a typo (`timeout_ms`), a string `timeoutMs`, a negative `retries` or a NaN
 * `temperature` is refused when the options enter, with `invalid_options` naming the setting.
 */
import { z } from 'zod';
import { checkOptions, fn, optionsObject } from './parse-options';

/**
 * An OpenAI-compatible endpoint (OpenAI, Workers AI, AI Gateway, Ollama, vLLM, a test double). Each
 * setting may be `undefined` (as `process.env` gives it), which is the same as leaving it out — so
 * `{ apiKey: process.env.OPENAI_API_KEY }` type-checks under `exactOptionalPropertyTypes` too.
 */
export type LlmOptions = {
  /** Omit for servers that need no key (Ollama, vLLM). */
  apiKey?: string | undefined;
  /** Default: OpenAI's API. */
  baseURL?: string | undefined;
  /** Default `gpt-4o-mini`. */
  model?: string | undefined;
  /** Models to try, in order, when `model` produces no valid plan. */
  fallbackModels?: readonly string[] | undefined;
  /** The fetch planning (and `llm.call` steps) use; tests and offline examples pass a scripted one. */
  fetch?: typeof fetch | undefined;
  /** 0 to 2, as OpenAI takes it. */
  temperature?: number | undefined;
  /**
   * Retries of a call that failed in transit (connection, 429, 5xx; not a timeout), with backoff from
   * 0.5 s doubling, or what its Retry-After asks up to 20 s; default 2, as in the Worker. At most 10.
   */
  retries?: number | undefined;
  /** Per model call, > 0; default: the run's `planning_timeout_s` (60 s unless its config says otherwise). */
  timeoutMs?: number | undefined;
};

/** More retries than this would hold a planning for minutes of backoff past its own deadline. */
const MAX_RETRIES = 10;

const modelName = z.string().trim().min(1);

const llmOptionsSchema = optionsObject({
  apiKey: z.string().optional(),
  baseURL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  model: modelName.optional(),
  fallbackModels: z.array(modelName).optional(),
  fetch: fn.optional(),
  temperature: z.number().min(0).max(2).optional(),
  retries: z.int().min(0).max(MAX_RETRIES).optional(),
  timeoutMs: z.number().positive().finite().optional(),
});

/**
 * `llm` as given, or `invalid_options` naming each bad setting; `undefined` stays `undefined`.
 * @example checkLlmOptions({ retries: -1 }) // throws "Invalid llm options: retries: must be at least 0"
 */
export function checkLlmOptions<T extends LlmOptions | undefined>(llm: T): T {
  return llm === undefined ? llm : checkOptions('llm options', llmOptionsSchema, llm);
}

/**
 * `llm.call` (SPEC §4): one Chat Completion against the configured OpenAI-compatible endpoint — the
 * default executor for steps that name no tool. Reports its token usage to the run's budget.
 */
import { z } from 'zod';
import { ToolError } from '../../errors';
import { defineTool } from '../registry';
import { secretsOf } from '../../planner/redact';
import { readCompletion } from '../../planner/completion-shape';
import type { ChatCompletion, ChatMessage } from './chat-completions-types';
import { BASE_URL_HINT } from './llm-error-text';
import {
  createOpenAIClient,
  readLlmConfig,
  shownUrl,
  toLlmError,
  LLM_NOT_CONFIGURED_MESSAGE,
} from './openai-client';
import { textStart } from '../../text-cut';

const JSON_INSTRUCTION = 'Respond with a single JSON object and nothing else.';

const llmCallInput = z
  .object({
    prompt: z.string().min(1).optional().describe('Sent as the last user message'),
    messages: z
      .array(z.object({ role: z.enum(['system', 'developer', 'user', 'assistant']), content: z.string() }))
      .min(1)
      .optional(),
    system: z.string().optional().describe('System message placed first'),
    model: z.string().min(1).optional().describe('Default: PLANNER_MODEL or gpt-4o-mini'),
    temperature: z.number().min(0).max(2).optional(),
    max_tokens: z.number().int().positive().optional(),
    response_format: z.enum(['text', 'json']).default('text'),
  })
  .refine((p) => p.prompt !== undefined || p.messages !== undefined, {
    message: 'one of prompt or messages is required',
    path: ['prompt'],
  });

/** `llm.call` parameters after defaults. */
export type LlmCallInput = z.infer<typeof llmCallInput>;

const llmCallOutput = z.object({
  content: z.string(),
  json: z.unknown().optional(),
  model: z.string(),
  finish_reason: z.string().nullable(),
  usage: z.object({ prompt_tokens: z.number(), completion_tokens: z.number(), total_tokens: z.number() }),
});

/** What `llm.call` returns; `json` is present when `response_format` was `json`. */
export type LlmCallOutput = z.infer<typeof llmCallOutput>;

/** The `llm.call` tool: one Chat Completion; needs OPENAI_API_KEY or OPENAI_BASE_URL. */
export const llmCall = defineTool({
  name: 'llm.call',
  description:
    'Chat completion with the configured LLM. Give `prompt` or `messages`; returns {content, model, usage}, ' +
    'plus parsed `json` when response_format is "json".',
  version: '1',
  input: llmCallInput,
  output: llmCallOutput,
  // No side effect: running it twice only costs tokens.
  idempotent: true,
  deterministic: false,
  estimated_latency_ms: 3_000,
  estimated_tokens: 1_000,
  run: async (params, ctx) => {
    const config = readLlmConfig(ctx.env);
    if (!config) throw new ToolError('llm_not_configured', LLM_NOT_CONFIGURED_MESSAGE, { retryable: false });
    const client = createOpenAIClient(ctx.env, ctx.fetch);
    const model = params.model ?? config.model;
    const json = params.response_format === 'json';
    // OpenAI's own API rejects max_tokens for reasoning models; compatible servers mostly know only max_tokens.
    const limit =
      params.max_tokens === undefined
        ? {}
        : config.baseURL
          ? { max_tokens: params.max_tokens }
          : { max_completion_tokens: params.max_tokens };

    let completion: unknown;
    try {
      completion = await client.create(
        {
          model,
          messages: buildMessages(params),
          ...(params.temperature === undefined ? {} : { temperature: params.temperature }),
          ...limit,
          ...(json ? { response_format: { type: 'json_object' as const } } : {}),
        },
        { signal: ctx.signal },
      );
    } catch (err) {
      throw toLlmError(err, { model, baseURL: config.baseURL, secrets: secretsOf({ ...ctx.env }) });
    }

    // Usage first, whatever else came: the server may have sent a page or null (checked below).
    const said = (completion as Partial<ChatCompletion> | null)?.usage;
    const usage = {
      prompt_tokens: said?.prompt_tokens ?? 0,
      completion_tokens: said?.completion_tokens ?? 0,
      total_tokens: said?.total_tokens ?? 0,
    };
    ctx.reportTokens?.({ prompt: usage.prompt_tokens, completion: usage.completion_tokens });

    // Checked through zod: a base URL that serves a web page or a native API answers 2xx too.
    const read = readCompletion(completion, model);
    if (!read.ok && read.kind === 'no_choices')
      throw new ToolError('llm_empty_response', `${model} returned no choices`);
    if (!read.ok) {
      const at = config.baseURL === undefined ? 'api.openai.com' : shownUrl(config.baseURL);
      throw new ToolError(
        'llm_invalid_response',
        `LLM at ${at} (model ${model}) answered ${read.what} instead of a chat completion — ${BASE_URL_HINT}`,
        { retryable: false },
      );
    }
    const content = read.content;
    const out: LlmCallOutput = { content, model: read.model, finish_reason: read.finish_reason, usage };
    if (json) out.json = parseJsonContent(content, model);
    return out;
  },
});

/**
 * The conversation sent: `system`, then `messages`, then `prompt` as the last user message. In JSON
 * mode an instruction is added when nothing mentions JSON, which OpenAI requires for `json_object`.
 */
export function buildMessages(params: LlmCallInput): ChatMessage[] {
  const messages: ChatMessage[] = [];
  let system = params.system;
  const all = `${system ?? ''}${params.messages?.map((m) => m.content).join('') ?? ''}${params.prompt ?? ''}`;
  // json_object mode requires the word "JSON" in the conversation (OpenAI rejects it otherwise).
  if (params.response_format === 'json' && !/json/i.test(all))
    system = system ? `${system}\n\n${JSON_INSTRUCTION}` : JSON_INSTRUCTION;
  if (system !== undefined) messages.push({ role: 'system', content: system });
  for (const m of params.messages ?? []) messages.push({ role: m.role, content: m.content });
  if (params.prompt !== undefined) messages.push({ role: 'user', content: params.prompt });
  return messages;
}

/** The JSON in a model's answer, tolerating a code fence or prose around one object or array. */
function parseJsonContent(content: string, model: string): unknown {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(content)?.[1];
  const candidates = [content, fenced, sliceBetween(content, '{', '}'), sliceBetween(content, '[', ']')];
  for (const c of candidates) {
    if (c === undefined || c.trim() === '') continue;
    try {
      return JSON.parse(c) as unknown;
    } catch {
      // try the next reading
    }
  }
  // Retryable: sampling again often yields valid JSON.
  throw new ToolError('invalid_json', `${model} was asked for JSON but answered: ${textStart(content, 200)}`);
}

function sliceBetween(text: string, open: string, close: string): string | undefined {
  const start = text.indexOf(open);
  const end = text.lastIndexOf(close);
  return start !== -1 && end > start ? text.slice(start, end + 1) : undefined;
}

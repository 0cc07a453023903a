/**
 * Reading a Chat Completion (and a streamed chunk of one) as OpenAI-compatible servers really send
 * it, checked with zod at the boundary: content as a string, as an array of text parts (Mistral,
 * some gateways) or empty beside a tool call that carries the answer (servers that implement
 * `json_schema` as a forced tool call); `finish_reason`, usage and reasoning fields when present.
 * A 2xx body that is no completion at all — a login page, Workers AI's native `{result}` envelope
 * behind a base URL without `/v1` — is described in words, never read as an empty answer.
 */
import { z } from 'zod';
import { textStart } from '../text-cut';

/** Tokens as the server counted them (0 when it did not say). */
export type TokenCount = { prompt: number; completion: number };

const TextPart = z.looseObject({ type: z.string().optional(), text: z.string().optional() });
const Content = z
  .union([z.string(), z.array(TextPart), z.null()])
  .optional()
  .catch(undefined);

const ToolCall = z.looseObject({
  function: z
    .looseObject({ arguments: z.string().optional().catch(undefined) })
    .optional()
    .catch(undefined),
});

const Message = z.looseObject({
  content: Content,
  refusal: z.string().nullable().optional().catch(undefined),
  tool_calls: z.array(ToolCall).nullable().optional().catch(undefined),
  function_call: z
    .looseObject({ arguments: z.string().optional().catch(undefined) })
    .nullable()
    .optional()
    .catch(undefined),
  reasoning_content: z.string().nullable().optional().catch(undefined),
  reasoning: z.string().nullable().optional().catch(undefined),
});

const Usage = z
  .looseObject({
    prompt_tokens: z.number().optional().catch(undefined),
    completion_tokens: z.number().optional().catch(undefined),
  })
  .nullable()
  .optional()
  .catch(undefined);

const Completion = z.looseObject({
  model: z.string().optional().catch(undefined),
  choices: z.array(
    z.looseObject({
      message: Message.optional().catch(undefined),
      finish_reason: z.string().nullable().optional().catch(undefined),
    }),
  ),
  usage: Usage,
});

const Chunk = z.looseObject({
  choices: z
    .array(z.looseObject({ delta: Message.optional().catch(undefined) }))
    .nullable()
    .optional()
    .catch(undefined),
  usage: Usage,
});

/** A completion's answer, or what came instead of a completion. */
export type CompletionRead =
  | {
      ok: true;
      content: string;
      refusal?: string;
      model: string;
      usage: TokenCount;
      /** `length`: the answer stopped at the output token limit, so it is likely cut off. */
      finish_reason: string | null;
      /** Characters of reasoning the server returned apart from the content (reasoning_content). */
      reasoning_chars: number;
    }
  /** `usage`: what a completion without choices says it cost (a content filter's block is billed too). */
  | { ok: false; kind: 'no_choices'; what: string; usage: TokenCount }
  | { ok: false; kind: 'not_a_completion'; what: string };

/**
 * The first choice's text: content, else the first tool call's (or legacy function call's) arguments.
 * @example readCompletion({ choices: [{ message: { content: [{ type: 'text', text: '{}' }] } }] }, 'm') // content '{}'
 */
export function readCompletion(value: unknown, requested: string): CompletionRead {
  const parsed = Completion.safeParse(value);
  if (!parsed.success) return { ok: false, kind: 'not_a_completion', what: describeBody(value) };
  const completion = parsed.data;
  const choice = completion.choices[0];
  if (!choice)
    return {
      ok: false,
      kind: 'no_choices',
      what: 'a completion with no choices',
      usage: usageOf(completion.usage),
    };
  const message = choice.message;
  const content = textOf(message?.content);
  const call = message?.tool_calls?.[0]?.function?.arguments ?? message?.function_call?.arguments;
  const out: CompletionRead = {
    ok: true,
    content: content.trim() === '' && call !== undefined ? call : content,
    model: completion.model || requested,
    usage: usageOf(completion.usage),
    finish_reason: choice.finish_reason ?? null,
    reasoning_chars: (message?.reasoning_content ?? message?.reasoning ?? '').length,
  };
  if (message?.refusal) out.refusal = message.refusal;
  return out;
}

/**
 * A streamed chunk's content text and usage, tolerating chunks without `choices` (a usage-only last
 * chunk some servers send), content parts and reasoning deltas (not content: they are skipped).
 * @example readChunk({ usage: { prompt_tokens: 5, completion_tokens: 2 } }) // { text: '', usage: { prompt: 5, completion: 2 } }
 */
export function readChunk(value: unknown): { text: string; usage?: TokenCount } {
  const parsed = Chunk.safeParse(value);
  if (!parsed.success) return { text: '' };
  const text = textOf(parsed.data.choices?.[0]?.delta?.content);
  return parsed.data.usage ? { text, usage: usageOf(parsed.data.usage) } : { text };
}

function textOf(content: z.infer<typeof Content>): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => p.text ?? '').join('');
  return '';
}

function usageOf(usage: z.infer<typeof Usage>): TokenCount {
  return { prompt: usage?.prompt_tokens ?? 0, completion: usage?.completion_tokens ?? 0 };
}

/** What a 2xx body that is not a completion looked like, for the error message. */
function describeBody(value: unknown): string {
  if (typeof value === 'string') {
    const text = value.trim();
    if (/^\s*(<!doctype html|<html|<head|<body)/i.test(text)) {
      const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text)?.[1]?.replace(/\s+/g, ' ').trim();
      return title ? `an HTML page ("${textStart(title, 80)}")` : 'an HTML page';
    }
    return text === '' ? 'an empty body' : `text, not JSON ("${textStart(text.replace(/\s+/g, ' '), 80)}")`;
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const keys = Object.keys(value).slice(0, 8);
    return `JSON without "choices" (its keys: ${keys.map((k) => `"${k}"`).join(', ') || 'none'})`;
  }
  return `a JSON ${value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value}`;
}

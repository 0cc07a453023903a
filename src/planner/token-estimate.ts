/**
 * Token counts estimated from text, for when the server never said: a stream cut off before its
 * usage chunk (OpenAI-compatible servers send `usage` only at the very end, with
 * `stream_options.include_usage`) — by us on an invalid step, by a timeout, or by a dropped
 * connection — still cost tokens, and a budget that counted none would under-report them.
 *
 * The estimate is OpenAI's rule of thumb, about 4 characters of English text per token, rounded up;
 * message roles and per-message overhead are not counted. JSON and non-English text take more tokens
 * per character, so it errs low, never wildly high.
 */
import type { ChatMessage, TokenCount } from './chat';

/** Characters per token the estimate assumes. */
export const CHARS_PER_TOKEN = 4;

/**
 * The tokens `chars` characters of text come to.
 * @example estimateTokens(10) // 3
 */
export function estimateTokens(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/**
 * What a call that sent `messages` and received `completionChars` characters spent, marked as an
 * estimate.
 * @example estimateUsage([{ role: 'user', content: 'plan this' }], 40) // { prompt: 3, completion: 10, estimated: true }
 */
export function estimateUsage(messages: readonly ChatMessage[], completionChars: number): TokenCount {
  let promptChars = 0;
  for (const m of messages) {
    const content = m.content;
    if (typeof content === 'string') promptChars += content.length;
    else if (content != null) promptChars += JSON.stringify(content).length;
  }
  return {
    prompt: estimateTokens(promptChars),
    completion: estimateTokens(completionChars),
    estimated: true,
  };
}

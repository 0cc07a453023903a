/**
 * The parts of OpenAI's Chat Completions API that edgeplan sends and reads — no more. What a server
 * answers is `unknown` until completion-shape.ts has read it through zod: an OpenAI-compatible
 * server may send content parts, nulls, usage-only chunks or a web page where a completion belongs.
 */

/** One message of the conversation; edgeplan sends text content only. */
export type ChatMessage = {
  role: 'system' | 'developer' | 'user' | 'assistant';
  content: string;
};

/** How the answer's format is asked for: a JSON schema, any JSON object, or (omitted) text. */
export type ResponseFormat =
  | { type: 'json_schema'; json_schema: { name: string; schema: Record<string, unknown>; strict?: boolean } }
  | { type: 'json_object' }
  | { type: 'text' };

/** The body of `POST …/chat/completions`. */
export type ChatCompletionRequest = {
  model: string;
  messages: ChatMessage[];
  temperature?: number;
  /** What compatible servers know; OpenAI's own API wants `max_completion_tokens` for reasoning models. */
  max_tokens?: number;
  max_completion_tokens?: number;
  response_format?: ResponseFormat;
  /** Asks for the usage chunk at the end of a stream. */
  stream_options?: { include_usage: boolean };
};

/** Tokens as the server counted them. */
export type ChatCompletionUsage = {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
};

/** A non-streamed answer, as OpenAI documents it (read through completion-shape.ts, never trusted). */
export type ChatCompletion = {
  id: string;
  model: string;
  choices: {
    index: number;
    message: { role: 'assistant'; content: string | null };
    finish_reason: string | null;
  }[];
  usage?: ChatCompletionUsage;
};

/** One streamed chunk, as OpenAI documents it; the last one may carry only `usage`. */
export type ChatCompletionChunk = {
  id: string;
  model: string;
  choices: { index: number; delta: { content?: string | null }; finish_reason: string | null }[];
  usage?: ChatCompletionUsage | null;
};

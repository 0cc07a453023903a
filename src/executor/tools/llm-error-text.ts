/**
 * What an OpenAI-compatible server said when it refused a call, in its own words, whichever shape
 * its error body has — OpenAI's `{error: {message}}`, Ollama's `{error: "…"}`, Cloudflare's
 * (Workers AI, AI Gateway) `{errors: [{message, code}]}`, a proxy's HTML page or plain text — and
 * what the user can change about it. Pure string work over `LlmApiError`'s fields (llm-errors.ts).
 */
import { clipText } from '../../text-cut';

/** The longest quote kept from a server's error (an HTML page or a stack trace can be kilobytes). */
const MAX_WORDS = 300;

/** The parts of `LlmApiError` read here: the parsed `error` field (or whole body), and the raw text. */
export type ServerError = { error?: unknown; message?: unknown; status?: unknown };

/**
 * The server's own words, one line, at most {@link MAX_WORDS} characters.
 * @example providerWords({ status: 403, error: { errors: [{ message: 'Authentication error', code: 10000 }] } })
 * // 'Authentication error (code 10000)'
 */
export function providerWords(err: ServerError): string {
  const body = err.error;
  const said = fromBody(body) ?? fromText(rawText(err));
  return cap(said.replace(/\s+/g, ' ').trim() || 'no error text');
}

/**
 * The type and code an error body carries besides its message, as `" (type …, code …)"`, or ''.
 * @example errorCodes({ message: 'slow down', type: 'throttling_error', code: 429 }) // ' (type throttling_error, code 429)'
 */
export function errorCodes(error: unknown): string {
  if (error === null || typeof error !== 'object') return '';
  const { type, code } = error as { type?: unknown; code?: unknown };
  const shown = (v: unknown) => (typeof v === 'string' && v.trim() !== '') || typeof v === 'number';
  const parts = [
    shown(type) ? `type ${cap(String(type))}` : '',
    shown(code) ? `code ${cap(String(code))}` : '',
  ];
  const said = parts.filter(Boolean).join(', ');
  return said ? ` (${said})` : '';
}

/** Words of an error body, by the HTTP status an error saying them would come with. */
const STATUS_WORDS: readonly [RegExp, number][] = [
  [/rate.?limit|too many requests|throttl|quota|requests per/i, 429],
  [/overload|capacity|unavailable|busy|try again later/i, 503],
  [/timed? ?out|timeout/i, 408],
  [/auth|api.?key|unauthori[sz]ed|permission|forbidden|access denied/i, 401],
  [/not.?found|does not exist|no such|unknown model/i, 404],
  [/internal|server.?error|upstream|bad gateway/i, 500],
  [/invalid|bad.?request|validation|context length|maximum context|too long|unsupported|not supported/i, 400],
];

/**
 * The HTTP error status an error body stands for, when the HTTP status said success: its `code` or
 * `status` when that is one (vLLM's `code: 400`, LiteLLM's `code: "429"`), else by its type, code and
 * message words (`rate_limit_exceeded` → 429, `overloaded_error` → 503); undefined when nothing says.
 * @example statusLike({ message: 'Rate limit reached', type: 'requests' }) // 429
 */
export function statusLike(error: unknown): number | undefined {
  if (error === null || typeof error !== 'object') {
    return typeof error === 'string' ? STATUS_WORDS.find(([re]) => re.test(error))?.[1] : undefined;
  }
  const { code, status, type, message } = error as Record<string, unknown>;
  for (const n of [code, status]) {
    const number = typeof n === 'number' ? n : typeof n === 'string' && /^\d{3}$/.test(n) ? Number(n) : NaN;
    if (number >= 400 && number <= 599) return number;
  }
  const words = [type, code, message].filter((w) => typeof w === 'string').join(' ');
  return STATUS_WORDS.find(([re]) => re.test(words))?.[1];
}

/** Whether the server answered with an HTML page (a proxy, a login page, a wrong base URL). */
export function isHtml(text: string): boolean {
  return /^\s*(<!doctype html|<html|<head|<body|<\?xml)/i.test(text);
}

/**
 * What to change, by what the server said: the key (401/403), the model name or the base URL
 * (404, or a 400 about the model), the base URL (an HTML page). Empty when nothing specific applies.
 * @example hintFor(404, 'model "llama9" not found, try pulling it first') // ' — check the model name (…'
 */
export function hintFor(status: number, words: string, html: boolean): string {
  if (status === 401 || status === 403) return ' — check OPENAI_API_KEY';
  if (html) return ` — the answer is an HTML page, not the API's JSON: ${BASE_URL_HINT}`;
  if (status === 404 && !MODEL_WORDS.test(words)) return ` — ${MODEL_HINT}, and ${BASE_URL_HINT}`;
  if ((status === 404 || status === 400 || status === 422) && MODEL_WORDS.test(words))
    return ` — ${MODEL_HINT}`;
  return '';
}

const MODEL_WORDS =
  /model.*(not (be )?found|does not exist|doesn't exist|not exist|unknown|invalid|not supported|no such)|(unknown|invalid|no such) model/i;
const MODEL_HINT =
  'check the model name (PLANNER_MODEL, PLANNER_FALLBACK_MODELS or the run\'s "model") against the models this endpoint serves';
/** How OPENAI_BASE_URL should look, per provider the README names. */
export const BASE_URL_HINT =
  'check that OPENAI_BASE_URL is the API\'s base URL, ending before "/chat/completions" (e.g. https://api.openai.com/v1, ' +
  'http://127.0.0.1:11434/v1 for Ollama, https://api.cloudflare.com/client/v4/accounts/<account id>/ai/v1 for Workers AI)';

function fromBody(body: unknown): string | undefined {
  if (typeof body === 'string') return isHtml(body) ? fromText(body) : body;
  if (body === null || typeof body !== 'object') return undefined;
  const record = body as Record<string, unknown>;
  if (typeof record.message === 'string' && record.message.trim() !== '') return record.message;
  // Cloudflare's API envelope: `{success: false, errors: [{code, message}], messages: []}`.
  if (Array.isArray(record.errors) && record.errors.length > 0) {
    return record.errors
      .map((e) => {
        if (typeof e === 'string') return e;
        const item = (e ?? {}) as Record<string, unknown>;
        const message = typeof item.message === 'string' ? item.message : JSON.stringify(e);
        return typeof item.code === 'string' || typeof item.code === 'number'
          ? `${message} (code ${item.code})`
          : message;
      })
      .join('; ');
  }
  if (typeof record.detail === 'string') return record.detail; // FastAPI-based servers
  if (typeof record.error === 'string') return record.error;
  if (record.error !== undefined) return fromBody(record.error);
  return JSON.stringify(body);
}

/** The error's message without its leading status (`"404 404 page not found"` → `"404 page not found"`). */
function rawText(err: ServerError): string {
  const message = typeof err.message === 'string' ? err.message : '';
  const status = typeof err.status === 'number' ? String(err.status) : '';
  return status && message.startsWith(`${status} `) ? message.slice(status.length + 1) : message;
}

/** Plain text as it is; an HTML page as its title and headings, not its markup. */
function fromText(text: string): string {
  if (!isHtml(text) && !/<\/(title|h1|body)>/i.test(text)) return text;
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text)?.[1];
  const heading = /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(text)?.[1];
  const parts = [title, heading].map((p) => p && stripTags(p)).filter((p): p is string => !!p);
  const unique = [...new Set(parts)];
  return unique.length > 0 ? `${unique.join(': ')} (an HTML page)` : 'an HTML page';
}

function stripTags(html: string): string {
  return html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/\s+/g, ' ')
    .trim();
}

function cap(text: string): string {
  return clipText(text, MAX_WORDS);
}

/**
 * `http.request` (SPEC §4): fetch with a host allowlist, non-public addresses refused, redirects
 * followed by hand so every hop is checked, and size and time limits.
 *
 * Status codes: a response is data — 4xx and 500 come back as `{status, …}` for the plan to branch on.
 * Only statuses that say "try again later" (`retry_on_status`, default 408, 429, 502, 503, 504) fail
 * the step with a retryable `http_status`, so the run's retry/backoff and fallback apply to them;
 * pass `retry_on_status: []` to receive those as data too.
 */
import { z } from 'zod';
import { retryAfterMs } from '../../client/retry-after';
import { ToolError } from '../../errors';
import { defineTool, type ToolContext } from '../registry';
import { parseAllowlist, type Allowlist } from './address-policy';
import { guardedFetch, redact } from './guarded-fetch';
import { decodeBody, readLimited } from './http-body';
import { clipText } from '../../text-cut';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_BYTES = 1024 * 1024;
const DEFAULT_RETRY_ON_STATUS = [408, 429, 502, 503, 504];

const httpRequestInput = z
  .object({
    url: z.string().min(1).describe('http:// or https:// URL'),
    method: z.enum(METHODS).default('GET'),
    headers: z.record(z.string(), z.string()).optional(),
    body: z.unknown().optional().describe('A string is sent as is; anything else as JSON'),
    timeout_ms: z.number().int().positive().max(300_000).optional().describe('Default 30000'),
    max_bytes: z
      .number()
      .int()
      .positive()
      .max(10 * 1024 * 1024)
      .optional()
      .describe('Default 1 MiB'),
    on_too_large: z
      .enum(['truncate', 'error'])
      .default('truncate')
      .describe('Past max_bytes: return the first max_bytes with truncated: true, or fail'),
    retry_on_status: z
      .array(z.number().int().min(100).max(599))
      .optional()
      .describe(
        'Statuses that fail the step as retryable instead of returning; default [408,429,502,503,504]',
      ),
  })
  .refine((p) => p.body === undefined || (p.method !== 'GET' && p.method !== 'HEAD'), {
    message: 'a body is not allowed with GET or HEAD',
    path: ['body'],
  });

/** `http.request` parameters after defaults. */
export type HttpRequestInput = z.infer<typeof httpRequestInput>;

const httpResponse = z.object({
  url: z.string(),
  status: z.number().int(),
  headers: z.record(z.string(), z.string()),
  body: z.unknown(),
  truncated: z.boolean().optional(),
  encoding: z.literal('base64').optional(),
});

/** What `http.request` returns. */
export type HttpResponse = z.infer<typeof httpResponse>;

/**
 * The `http.request` tool. Not idempotent: POST/PATCH carry the attempt's key as `Idempotency-Key`,
 * which helps only servers that honour it.
 */
export const httpRequest = defineTool({
  name: 'http.request',
  description:
    'HTTP request to a public (or HTTP_ALLOWLIST-ed) host. Returns {url, status, headers, body}; ' +
    'body is parsed JSON for JSON responses, else text. Redirects are followed (max 5).',
  version: '1',
  input: httpRequestInput,
  output: httpResponse,
  idempotent: false,
  deterministic: false,
  estimated_latency_ms: 500,
  estimated_tokens: 0,
  run: async (params, ctx) => {
    const raw = ctx.env.HTTP_ALLOWLIST;
    const allowlist = parseAllowlist(typeof raw === 'string' ? raw : '');
    const timeoutMs = params.timeout_ms ?? DEFAULT_TIMEOUT_MS;
    const controller = new AbortController();
    const onOuterAbort = () => controller.abort(ctx.signal.reason);
    ctx.signal.addEventListener('abort', onOuterAbort, { once: true });
    if (ctx.signal.aborted) onOuterAbort();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new DOMException(`Timed out after ${timeoutMs} ms`, 'TimeoutError'));
    }, timeoutMs);
    try {
      return await request(params, ctx, allowlist, controller.signal);
    } catch (err) {
      if (timedOut) {
        const message = `${params.method} ${redact(params.url)} timed out after ${timeoutMs} ms`;
        throw new ToolError('timeout', message);
      }
      throw err;
    } finally {
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', onOuterAbort);
    }
  },
});

async function request(
  params: HttpRequestInput,
  ctx: ToolContext,
  allowlist: Allowlist,
  signal: AbortSignal,
): Promise<HttpResponse> {
  const headers = new Headers(params.headers);
  const body = encodeBody(params.body, headers);
  // Lets a server that honours Idempotency-Key deduplicate a redelivered attempt (SPEC §4).
  if ((params.method === 'POST' || params.method === 'PATCH') && !headers.has('idempotency-key')) {
    headers.set('idempotency-key', ctx.idempotencyKey);
  }
  const { response, url, method } = await guardedFetch(
    params.url,
    { method: params.method, headers, body },
    { allowlist, fetch: ctx.fetch ?? fetch, signal },
  );
  return readResponse(response, method, url, params, signal);
}

async function readResponse(
  res: Response,
  method: string,
  url: URL,
  params: HttpRequestInput,
  signal: AbortSignal,
): Promise<HttpResponse> {
  const retryOn = params.retry_on_status ?? DEFAULT_RETRY_ON_STATUS;
  if (retryOn.includes(res.status)) {
    void res.body?.cancel().catch(() => {});
    const after = res.headers.get('retry-after');
    // The server's words, kept short: a header or reason phrase may be kilobytes long.
    throw new ToolError(
      'http_status',
      `${method} ${redact(url)} answered ${res.status} ${clip(res.statusText)}`.trim() +
        (after ? ` (retry-after: ${clip(after)})` : '') +
        '; retryable — set retry_on_status: [] to receive it as data',
      // The step's retry waits as long as the server asked (a 429's or 503's Retry-After).
      { retryAfterMs: retryAfterMs(after) },
    );
  }
  const maxBytes = params.max_bytes ?? DEFAULT_MAX_BYTES;
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (params.on_too_large === 'error' && declared > maxBytes) {
    void res.body?.cancel().catch(() => {});
    throw tooLarge(method, url, maxBytes, `${declared} bytes declared`);
  }
  const { bytes, truncated } = await readLimited(method === 'HEAD' ? null : res.body, maxBytes, signal);
  if (truncated && params.on_too_large === 'error') throw tooLarge(method, url, maxBytes, 'more sent');

  const { body, encoding } = decodeBody(bytes, res.headers.get('content-type'), truncated);
  const out: HttpResponse = {
    url: url.href,
    status: res.status,
    headers: Object.fromEntries(res.headers),
    body: method === 'HEAD' ? null : body,
  };
  if (truncated) out.truncated = true;
  if (encoding) out.encoding = encoding;
  return out;
}

function tooLarge(method: string, url: URL, maxBytes: number, detail: string): ToolError {
  const message =
    `${method} ${redact(url)}: the response is over max_bytes (${maxBytes}; ${detail}); ` +
    'raise max_bytes or use on_too_large: "truncate"';
  return new ToolError('response_too_large', message, { retryable: false });
}

/** Strings go as they are; anything else as JSON, with a JSON content type unless one was set. */
function encodeBody(body: unknown, headers: Headers): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  return JSON.stringify(body);
}

/** At most 64 characters of a server's header text, marked when cut. */
function clip(text: string): string {
  return clipText(text, 64);
}

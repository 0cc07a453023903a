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
import { ToolError } from '../../errors';
import { defineTool, type ToolContext } from '../registry';
import { checkHost, parseAllowlist, type Allowlist } from './address-policy';
import { decodeBody, readLimited } from './http-body';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
const MAX_REDIRECTS = 5;
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

type HttpRequestInput = z.infer<typeof httpRequestInput>;

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
    const allowlist = parseAllowlist(
      typeof ctx.env.HTTP_ALLOWLIST === 'string' ? ctx.env.HTTP_ALLOWLIST : '',
    );
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
        throw new ToolError(
          'timeout',
          `${params.method} ${redact(params.url)} timed out after ${timeoutMs} ms`,
        );
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
  const doFetch = ctx.fetch ?? fetch;
  let url = parseTarget(params.url);
  let method: string = params.method;
  const headers = new Headers(params.headers);
  let body = encodeBody(params.body, headers);
  // Lets a server that honours Idempotency-Key deduplicate a redelivered attempt (SPEC §4).
  if ((method === 'POST' || method === 'PATCH') && !headers.has('idempotency-key')) {
    headers.set('idempotency-key', ctx.idempotencyKey);
  }

  for (let hop = 0; ; hop++) {
    assertAllowed(url, allowlist);
    let res: Response;
    try {
      res = await doFetch(url.href, { method, headers, body, redirect: 'manual', signal });
    } catch (err) {
      if (signal.aborted) throw err;
      const why = err instanceof Error ? err.message : String(err);
      throw new ToolError('http_error', `${method} ${redact(url)} failed: ${why}`);
    }

    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && res.status !== 304 && location) {
      void res.body?.cancel().catch(() => {});
      if (hop >= MAX_REDIRECTS) {
        throw new ToolError(
          'too_many_redirects',
          `${redact(params.url)} redirected more than ${MAX_REDIRECTS} times`,
          {
            retryable: false,
          },
        );
      }
      const next = parseTarget(location, url);
      // Browsers' rules: 303 (and 301/302 after a POST) continue as a GET without the body.
      if (
        res.status === 303
          ? method !== 'HEAD'
          : (res.status === 301 || res.status === 302) && method === 'POST'
      ) {
        method = 'GET';
        body = undefined;
        headers.delete('content-type');
      }
      if (next.origin !== url.origin) {
        for (const h of ['authorization', 'cookie', 'proxy-authorization']) headers.delete(h);
      }
      url = next;
      continue;
    }
    return readResponse(res, method, url, params, signal);
  }
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
    throw new ToolError(
      'http_status',
      `${method} ${redact(url)} answered ${res.status} ${res.statusText}`.trim() +
        (after ? ` (retry-after: ${after})` : '') +
        '; retryable — set retry_on_status: [] to receive it as data',
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
  return new ToolError(
    'response_too_large',
    `${method} ${redact(url)}: response is over max_bytes (${maxBytes}; ${detail}); raise max_bytes or use on_too_large: "truncate"`,
    { retryable: false },
  );
}

function parseTarget(raw: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw new ToolError('invalid_url', `Not a valid URL: ${raw.slice(0, 200)}`, { retryable: false });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ToolError('invalid_url', `Only http and https URLs are allowed, got ${url.protocol}`, {
      retryable: false,
    });
  }
  if (url.username || url.password) {
    throw new ToolError(
      'invalid_url',
      `URLs with credentials are not allowed; send an Authorization header`,
      {
        retryable: false,
      },
    );
  }
  return url;
}

function assertAllowed(url: URL, allowlist: Allowlist): void {
  const decision = checkHost(url.hostname, allowlist);
  if (!decision.allowed) {
    throw new ToolError(decision.code, `Refused ${redact(url)}: ${decision.reason}`, { retryable: false });
  }
}

/** Strings go as they are; anything else as JSON, with a JSON content type unless one was set. */
function encodeBody(body: unknown, headers: Headers): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  return JSON.stringify(body);
}

/** A URL for messages, which end up in the event log: no query string or fragment (they may hold keys). */
function redact(url: URL | string): string {
  try {
    const u = typeof url === 'string' ? new URL(url) : url;
    return `${u.origin}${u.pathname}`;
  } catch {
    return String(url).slice(0, 200);
  }
}

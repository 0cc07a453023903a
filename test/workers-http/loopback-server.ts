/**
 * Vitest globalSetup for the `workers-http` project: a real HTTP server on 127.0.0.1 in Node, so
 * `http.request` is tested through the Workers runtime's own `fetch` and a real socket. Its port
 * reaches the tests as `inject('httpPort')`.
 *
 * Routes (any method):
 * - `/echo…` (`/echo` and `/echo/<anything>`) → 200 JSON `{method, path, query, content_type, idempotency_key, body}` (body parsed
 *   as JSON when it is JSON)
 * - `/status/<code>` → that status, text body `status <code>` (with `?retry_after=<v>`: a `Retry-After: <v>` header)
 * - `/redirect…?to=<url>` → 302 to `<url>`
 * - `/fail-first/<n>/<id>` → 503 for the first `n` requests of that path, then 200 `{received: <body>}`;
 *   with `?retry_after=<v>` the refusals are 429 with a `Retry-After: <v>` header
 * - `/hang-first/<id>` → the first request never gets an answer; later ones 200 `{received: <body>}`
 * - `/verify/<id>?secret=whsec_…` → a Standard Webhooks receiver holding that one secret: 200
 *   `{verified: true}` when the `standardwebhooks` package's own `verify` accepts the request, else 401
 *   `{verified: false, error}`
 * - `/last-body?path=<path>` → 200 `{body}`: the last request body that path received
 * - `/hits` → 200 JSON `{ "<path>": <requests so far> }`, so a test can tell whether a request
 *   arrived (give each test paths of its own: test files may run at the same time)
 * - anything else → 404
 */
import { Webhook } from 'standardwebhooks';
import type { TestProject } from 'vitest/node';
import { http, type IncomingMessage, type ServerResponse } from '../../scripts/eval/node-api';
import { listenOnLoopback } from './free-port';

declare module 'vitest' {
  export interface ProvidedContext {
    httpPort: number;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const hits: Record<string, number> = {};
  const bodies: Record<string, string> = {};
  const server = http().createServer((req, res) => {
    handle(req, res, hits, bodies).catch((err: unknown) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(err));
    });
  });
  const port = await listenOnLoopback(server);
  project.provide('httpPort', port);
  return () => new Promise<void>((resolve) => server.close(() => resolve()));
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  hits: Record<string, number>,
  bodies: Record<string, string>,
) {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  hits[url.pathname] = (hits[url.pathname] ?? 0) + 1;
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of req) text += decoder.decode(chunk, { stream: true });
  text += decoder.decode();
  if (url.pathname !== '/last-body') bodies[url.pathname] = text;
  const json = (status: number, value: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  };

  if (url.pathname === '/echo' || url.pathname.startsWith('/echo/')) {
    const contentType = header(req, 'content-type');
    json(200, {
      method: req.method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      content_type: contentType ?? null,
      idempotency_key: header(req, 'idempotency-key') ?? null,
      body: contentType?.startsWith('application/json') ? JSON.parse(text) : text,
    });
  } else if (url.pathname.startsWith('/status/')) {
    const code = Number(url.pathname.slice('/status/'.length));
    res.writeHead(code, { 'content-type': 'text/plain', ...retryAfter(url) });
    res.end(`status ${code}`);
  } else if (url.pathname === '/redirect' || url.pathname.startsWith('/redirect/')) {
    res.writeHead(302, { location: url.searchParams.get('to') ?? '/' });
    res.end();
  } else if (url.pathname.startsWith('/fail-first/')) {
    const n = Number(url.pathname.split('/')[2]);
    if ((hits[url.pathname] ?? 0) <= n) {
      const asked = retryAfter(url);
      res.writeHead(asked['retry-after'] === undefined ? 503 : 429, {
        'content-type': 'text/plain',
        ...asked,
      });
      res.end('try later');
    } else json(200, { received: text });
  } else if (url.pathname.startsWith('/hang-first/')) {
    if (hits[url.pathname] === 1) return; // the client gives up or goes away; the socket stays open
    json(200, { received: text });
  } else if (url.pathname.startsWith('/deep/')) {
    // JSON nested as deep as the path says: `[[[…]]]`.
    const depth = Number(url.pathname.slice('/deep/'.length));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('['.repeat(depth) + ']'.repeat(depth));
  } else if (url.pathname.startsWith('/verify/')) {
    const headers = {
      'webhook-id': header(req, 'webhook-id') ?? '',
      'webhook-timestamp': header(req, 'webhook-timestamp') ?? '',
      'webhook-signature': header(req, 'webhook-signature') ?? '',
    };
    try {
      new Webhook(url.searchParams.get('secret') ?? '').verify(text, headers);
      json(200, { verified: true });
    } catch (err) {
      json(401, { verified: false, error: String(err) });
    }
  } else if (url.pathname === '/last-body') {
    json(200, { body: bodies[url.searchParams.get('path') ?? ''] ?? null });
  } else if (url.pathname === '/hits') {
    json(200, hits);
  } else {
    json(404, { error: `no route ${url.pathname}` });
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** A `Retry-After` header when the request's `?retry_after=` asks for one. */
function retryAfter(url: URL): Record<string, string> {
  const value = url.searchParams.get('retry_after');
  return value === null ? {} : { 'retry-after': value };
}

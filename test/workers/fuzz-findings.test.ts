/**
 * What the schema-driven fuzz (fuzz-schema.test.ts, and the run against wrangler dev in
 * test/e2e/fuzz-wrangler.test.ts) found, each as its minimal reproducer.
 */
import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app';

type Envelope = { error: { code: string; message: string; details?: Record<string, unknown> } };

/** A body that breaks off after `{"plan": `, as an upload whose connection drops does. */
function brokenBody(): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"plan": '));
      controller.error(new Error('Network connection lost.'));
    },
  });
}

describe('fuzz findings', () => {
  // wrangler dev, a malformed chunk: `POST /v1/plans/validate` with `Transfer-Encoding: chunked` and
  // the chunk size `zz` — the body read failed in the app and came back `500 internal`, logged as a bug.
  // (The Worker's entrypoint in tests hands the app a body that just ends, so the app is called directly.)
  it.each([
    ['/v1/plans/validate', {}],
    ['/v1/runs/run_x/cancel', {}],
    ['/v1/runs', { 'Content-Length': '64' }],
  ])(
    'answers a body that breaks off mid-upload (POST %s) 400 invalid_request, not 500',
    async (path, headers) => {
      const app = createApp();
      const res = await app.fetch(
        new Request(`http://edgeplan.test${path}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...headers },
          body: brokenBody(),
        }),
        env,
      );
      expect(res.status).toBe(400);
      const { error } = await res.json<Envelope>();
      expect(error.code).toBe('invalid_request');
      expect(error.details).toEqual({ body: 'unreadable' });
      expect(error.message).toMatch(/could not be read in full .*send the whole body again/);
    },
  );

  it('answers a broken-off body on /mcp as a JSON-RPC error an MCP client reads', async () => {
    const res = await createApp().fetch(
      new Request('http://edgeplan.test/mcp', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: brokenBody(),
      }),
      env,
    );
    expect(res.status).toBe(400);
    const body = await res.json<{ error: { code: number; data: { code: string } } }>();
    expect(body.error.code).toBe(-32600);
    expect(body.error.data.code).toBe('invalid_request');
  });

  // `GET /health//` was `405 method_not_allowed: /health/ takes GET, HEAD, not GET`.
  it.each([
    ['GET', '/health//', '/health'],
    ['POST', '/v1/runs/run_x/cancel//', '/v1/runs/run_x/cancel'],
    ['GET', '/v1//runs', '/v1/runs'],
  ])(
    'answers %s %s 404 pointing at the route, not a 405 refusing the method it takes',
    async (method, path, route) => {
      const res = await exports.default.fetch(new Request(`http://edgeplan.test${path}`, { method }));
      expect(res.status).toBe(404);
      const { error } = await res.json<Envelope>();
      expect(error.code).toBe('not_found');
      expect(error.message).toContain(`did you mean ${route}?`);
    },
  );

  it('still answers a wrong method on a route 405 with Allow, trailing slash or not', async () => {
    for (const path of ['/health', '/health/']) {
      const res = await exports.default.fetch(new Request(`http://edgeplan.test${path}`, { method: 'POST' }));
      expect(res.status).toBe(405);
      expect(res.headers.get('Allow')).toBe('GET, HEAD');
    }
  });
});

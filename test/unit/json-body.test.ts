import { Hono } from 'hono';
import { describe, expect, it, vi } from 'vitest';
import { jsonBody } from '../../src/http/middleware/json-body';

describe('the JSON body middleware', () => {
  it('parses a body once: the validator and the route get that parse from c.req.json()', async () => {
    const app = new Hono();
    app.use('*', jsonBody());
    let seen: unknown[] = [];
    app.post('/runs', async (c) => {
      seen = [await c.req.json(), await c.req.json()];
      return c.body(null, 204);
    });
    const body = JSON.stringify({ plan: { steps: [{ id: 'a' }] } });
    const parse = vi.spyOn(JSON, 'parse');
    const res = await app.request('/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    const parses = parse.mock.calls.filter(([text]) => text === body).length;
    parse.mockRestore();
    expect(res.status).toBe(204);
    expect(seen[0]).toEqual({ plan: { steps: [{ id: 'a' }] } });
    expect(seen[1]).toBe(seen[0]);
    expect(parses).toBe(1);
  });

  it('still refuses a body that does not parse, saying where', async () => {
    const app = new Hono();
    app.use('*', jsonBody());
    app.post('/runs', (c) => c.body(null, 204));
    const res = await app.request('/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"plan": ',
    });
    expect(res.status).toBe(400);
    expect((await res.json<{ error: { code: string } }>()).error.code).toBe('invalid_json');
  });
});

/**
 * What a refusal repeats of the caller's input is bounded: a 20 KB run id in the path, or a 20 KB
 * path no route has, comes back as at most 80 characters of it and "…" — on the API's routes and in
 * /mcp's tool results — not as a 20 KB message.
 */
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { call, connect } from './mcp-client';

const BASE = 'http://edgeplan.test';
const long = `run_${'a'.repeat(20_000)}`;

async function messageOf(method: string, path: string): Promise<{ status: number; message: string }> {
  const res = await exports.default.fetch(new Request(`${BASE}${path}`, { method }));
  const body = await res.json<{ error: { message: string } }>();
  return { status: res.status, message: body.error.message };
}

describe('messages that quote the caller’s input', () => {
  it.each([
    ['GET', '/v1/runs/<id>'],
    ['GET', '/v1/runs/<id>/events'],
    ['GET', '/v1/runs/<id>/wait'],
    ['GET', '/v1/runs/<id>/ws'],
    ['GET', '/v1/runs/<id>/versions/1'],
    ['POST', '/v1/runs/<id>/cancel'],
    ['GET', '/v1/<id>'],
    ['PUT', '/v1/runs/<id>'],
  ])('%s %s with a 20 KB id: at most 80 characters of it, cut with "…"', async (method, route) => {
    const path = route.replace('<id>', long);
    const { status, message } = await messageOf(method, path);
    expect(status).toBeGreaterThanOrEqual(400);
    expect(status).toBeLessThan(500);
    expect(message.length).toBeLessThan(400);
    expect(!path.includes(long) || message.includes(`${long.slice(0, 60)}`)).toBe(true);
    expect(!path.includes(long) || message.includes('…')).toBe(true);
  });

  it('in /mcp, a tool given a 20 KB run id says so in a short message', async () => {
    const client = await connect();
    const r = await call(client, 'get_run', { run_id: long });
    expect(r.isError).toBe(true);
    const text = r.content.map((c) => c.text ?? '').join('');
    expect(text.length).toBeLessThan(600);
    expect(text).toContain('…');
    await client.close();
  });
});

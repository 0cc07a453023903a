/**
 * edgeplan/client's createRun against the real Worker when the connection drops after the API
 * created the run but before its answer arrived: the client sends the request again with the same
 * Idempotency-Key and gets that run — one run, its side effect carried out once.
 */
import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/client';
import { readDemoCounter } from '../../src/executor/tools/demo-counters-client';
import { waitForRun } from './helpers';

describe('edgeplan/client createRun over a connection that drops the answer', () => {
  it('retries with the same key and is answered with the run the first request created', async () => {
    const counter = `client-retry-${crypto.randomUUID()}`;
    const seen: { key: string | null; status: number }[] = [];
    let dropped = false;
    const client = createClient({
      baseUrl: 'http://edgeplan.test',
      fetch: async (input, init) => {
        const req = new Request(input, init);
        const res = await exports.default.fetch(req);
        seen.push({ key: req.headers.get('idempotency-key'), status: res.status });
        // The API did its work; the answer is lost on the way back, once.
        if (!dropped) {
          dropped = true;
          throw new TypeError('fetch failed (socket hang up)');
        }
        return res;
      },
    });
    const run = await client.createRun({
      plan: { goal: 'once', steps: [{ id: 'c', action: 'demo.counter', parameters: { key: counter } }] },
    });
    expect(seen).toHaveLength(2);
    expect(seen.map((s) => s.status)).toEqual([201, 201]);
    expect(seen[1]!.key).toBe(seen[0]!.key);
    await waitForRun(run.run_id);
    expect(await readDemoCounter(env, counter)).toBe(1);
    const listed = await env.DB.prepare('SELECT run_id FROM runs WHERE run_id = ?').bind(run.run_id).all();
    expect(listed.results).toHaveLength(1);
  });
});

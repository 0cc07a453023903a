/**
 * `edgeplan/client` inside the Workers runtime (#12): with a service binding's fetch (here the
 * Worker's own), a run is created, followed with watch() over the WebSocket a Worker opens with fetch
 * and an Upgrade header, and read back — typed end to end.
 */
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createClient, EdgeplanApiError } from '../../src/client';

const client = createClient({
  baseUrl: 'http://edgeplan.test',
  fetch: (input, init) => exports.default.fetch(new Request(input, init)),
});

describe('edgeplan/client in a Worker', () => {
  it('creates a parallel run and watches it over the WebSocket to RunTerminated', async () => {
    const { run_id } = await client.createRun({
      plan: {
        goal: 'fan out',
        steps: [
          { id: 'a', action: 'demo.sleep', parameters: { ms: 30 } },
          { id: 'b', action: 'demo.sleep', parameters: { ms: 30 } },
          { id: 'c', action: 'demo.echo', parameters: { value: 'done' }, dependencies: ['a', 'b'] },
        ],
      },
      config: { execution_mode: 'parallel' },
    });
    const seen: string[] = [];
    let last = 0;
    for await (const e of client.watch(run_id, { transport: 'websocket' })) {
      expect(e.seq).toBe(last + 1);
      last = e.seq;
      seen.push(e.event_type);
    }
    expect(seen[0]).toBe('RunCreated');
    expect(seen.at(-1)).toBe('RunTerminated');
    expect(seen.filter((t) => t === 'ToolReturned')).toHaveLength(3);
    const run = await client.getRun(run_id);
    expect(run.status).toBe('completed');
    expect(run.step_results.c).toEqual({ value: 'done' });
  });

  it('throws the API’s code for a plan with findings', async () => {
    const err = await client
      .createRun({ plan: { goal: 'g', steps: [{ id: 'a', action: 'no.such_tool' }] } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EdgeplanApiError);
    expect(err).toMatchObject({ status: 422, code: 'invalid_plan' });
  });
});

/**
 * docs/SPEC.md held to the letter against `wrangler dev` started here, as a client outside this
 * repository meets it: over HTTP, one statement of the contract per test, each one a gap an outside
 * suite found between what the SPEC says and what the service did.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script without declarations
import { startDevServer } from '../../scripts/dev-server.mjs';
import { serverApi } from './server-api';
import { pinnedPort } from './pinned-port';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let server: { base: string; stop(): Promise<void> };
const { call, get } = serverApi(() => server.base);

beforeAll(async () => {
  // EDGEPLAN_E2E_PORT pins the port (a machine that gives each runner a range); else a free one.
  server = (await startDevServer({ name: 'spec-letter', port: pinnedPort() })) as typeof server;
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

/** A run of one `demo.echo` step, followed to its end; its snapshot. */
async function endedEchoRun(): Promise<Json> {
  const created = await call('POST', '/v1/runs', {
    plan: { goal: 'echo', steps: [{ id: 'a', action: 'demo.echo', parameters: { x: 1 } }] },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const { run } = await get(`/v1/runs/${created.body.run_id as string}/wait?timeout_s=20`);
  expect(run.status).toBe('completed');
  return run as Json;
}

describe('the SPEC against wrangler dev', { timeout: 60_000 }, () => {
  it('GET /state?at= gives the state as of an event of the run, and refuses a seq it has not reached', async () => {
    const run = await endedEchoRun();
    const last = run.last_seq as number;
    const atLast = await get(`/v1/runs/${run.run_id as string}/state?at=${last}`);
    expect(atLast.status).toBe('completed');
    // As /events and /ws refuse an `after` past the last event: a state "as of" an event that has not
    // happened is no state of the run's (a running run's next events would contradict it).
    const past = await call('GET', `/v1/runs/${run.run_id as string}/state?at=${last + 1}`);
    expect(past.status).toBe(400);
    expect(past.body.error.code).toBe('invalid_request');
    expect(past.body.error.details).toEqual({ at: last + 1, last_seq: last });
    expect(past.body.error.message).toContain(`seq ${last}`);
  });

  it('names the tool version in ToolReturned.references, as the envelope of SPEC §5 shows it', async () => {
    const run = await endedEchoRun();
    const { events } = await get(`/v1/runs/${run.run_id as string}/events?after=0`);
    const of = (type: string) => (events as Json[]).find((e) => e.event_type === type)!;
    const tools = await get('/v1/tools');
    const echo = (tools.tools as Json[]).find((t) => t.name === 'demo.echo')!;
    expect(of('ToolInvoked').references).toEqual({
      plan_id: run.plan.id,
      plan_version: 1,
      step_id: 'a',
      tool_version: echo.version,
    });
    expect(of('ToolReturned').references).toEqual(of('ToolInvoked').references);
  });
});

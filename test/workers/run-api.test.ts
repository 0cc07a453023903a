import { abortAllDurableObjects, runInDurableObject } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import type { PlanRun } from '../../src/durable/plan-run';
import { describe, expect, it } from 'vitest';
import { api, events, startRun, waitForRun, type Json } from './helpers';

const echo = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  action: 'demo.echo',
  parameters: { id },
  ...extra,
});

async function openSocket(
  runId: string,
  after = 0,
): Promise<{ ws: WebSocket; received: Json[]; closed: Promise<void> }> {
  const res = await exports.default.fetch(
    new Request(`http://edgeplan.test/v1/runs/${runId}/ws?after=${after}`, {
      headers: { Upgrade: 'websocket' },
    }),
  );
  expect(res.status).toBe(101);
  const ws = res.webSocket!;
  const received: Json[] = [];
  ws.accept();
  ws.addEventListener('message', (m) => received.push(JSON.parse(String(m.data)) as Json));
  const closed = new Promise<void>((r) => ws.addEventListener('close', () => r()));
  return { ws, received, closed };
}

async function until(cond: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('events', () => {
  it('numbers a run’s events without gaps in the seed-002 envelope, and pages with after=', async () => {
    const runId = await startRun({ steps: [echo('a'), echo('b', { dependencies: ['a'] })] });
    await waitForRun(runId);
    const all = await events(runId);
    expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
    const types = all.map((e) => e.event_type);
    expect(types.slice(0, 4)).toEqual(['RunCreated', 'PlanAuthored', 'PlanValidated', 'RunStarted']);
    expect(types).toContain('StepScheduled');
    expect(types).toContain('ToolInvoked');
    expect(types.at(-1)).toBe('RunTerminated');
    const returned = all.find((e) => e.event_type === 'ToolReturned')!;
    expect(returned).toMatchObject({ actor: `run:${runId}`, references: { step_id: 'a', plan_version: 1 } });
    expect(returned.payload).toMatchObject({ success: true, output: { id: 'a' } });
    expect(typeof returned.payload.latency_ms).toBe('number');
    expect(returned.event_id).toMatch(/^[0-9a-f-]{36}$/);
    const later = await events(runId, 3);
    expect(later[0]!.seq).toBe(4);
  });

  it('replays the event log to the live state, and to any earlier point', async () => {
    const runs = [
      await startRun({
        steps: [echo('a'), echo('b', { dependencies: ['a'] }), echo('c', { when: 'false' })],
      }),
      await startRun(
        {
          steps: [
            echo('a'),
            { id: 'f', action: 'demo.flaky', parameters: { fail_times: 5, key: `r-${Date.now()}` } },
          ],
        },
        { retry_failed_steps: 0, continue_on_failure: true },
      ),
      await startRun(
        {
          steps: [
            {
              id: 'p',
              action: 'demo.flaky',
              parameters: { fail_times: 1, key: `p-${Date.now()}` },
              output_path: 'state.ok || state.err',
            },
            echo('q', { parameters: { e: '{{ state.err }}' } }),
          ],
        },
        { retry_failed_steps: 0 },
      ),
    ];
    for (const id of runs) {
      const live = await waitForRun(id);
      const replayed = await api('GET', `/v1/runs/${id}/state`);
      expect(replayed.body).toEqual(live);
    }
    const first = runs[0]!;
    const at4 = await api('GET', `/v1/runs/${first}/state?at=4`);
    expect(at4.body.status).toBe('running');
    expect(at4.body.step_results).toEqual({});
    const at1 = await api('GET', `/v1/runs/${first}/state?at=1`);
    expect(at1.body.run_id).toBe(first);
    // Events are numbered from 1: there is no state "as of event 0" (it had no run id).
    for (const at of ['0', '', ' 1', '0x1']) {
      const bad = await api('GET', `/v1/runs/${first}/state?at=${at}`);
      expect(bad.status).toBe(400);
      expect(bad.body.error.message).toContain('at: ');
    }
  });
});

describe('live progress over WebSocket', () => {
  it('sends the backlog after ?after=, then live events, to several clients; a reconnect loses nothing', async () => {
    const runId = await startRun({
      steps: [
        echo('a'),
        { id: 'wait', action: 'demo.sleep', parameters: { ms: 300 }, dependencies: ['a'] },
        echo('z', { dependencies: ['wait'] }),
      ],
    });
    await waitForRun(runId, (r) => r.step_statuses.wait === 'running');
    const one = await openSocket(runId, 0);
    const two = await openSocket(runId, 2);
    await until(() => one.received.length > 0 && two.received.length > 0);
    expect(one.received[0]!.seq).toBe(1);
    expect(two.received[0]!.seq).toBe(3);
    // Drop the second client mid-run and reconnect from the last seq it saw.
    const seen = two.received.at(-1)!.seq as number;
    two.ws.close(1000, 'bye');
    await waitForRun(runId);
    const last = (await events(runId)).at(-1)!.seq as number;
    await until(() => one.received.at(-1)?.seq === last);
    expect(one.received.map((e) => e.seq)).toEqual(Array.from({ length: last }, (_, i) => i + 1));
    const again = await openSocket(runId, seen);
    await until(() => again.received.at(-1)?.seq === last);
    expect([
      ...two.received.map((e) => e.seq as number),
      ...again.received.map((e) => e.seq as number),
    ]).toEqual(Array.from({ length: last - 2 }, (_, i) => i + 3));
    one.ws.close(1000);
    again.ws.close(1000);
  });

  it('closes quietly after a client vanished without a close frame (1006), even when the socket refuses', async () => {
    const runId = await startRun({ steps: [echo('a')] });
    await waitForRun(runId);
    const closes: [number, string][] = [];
    await runInDurableObject(env.PLAN_RUN.getByName(runId), (instance: PlanRun) => {
      const gone = {
        close(code: number, reason: string) {
          closes.push([code, reason]);
          throw new TypeError('WebSocket already closed');
        },
      } as unknown as WebSocket;
      expect(() => instance.webSocketClose(gone, 1006)).not.toThrow();
    });
    // 1006 may not be sent back: the object answers with a normal closure.
    expect(closes).toEqual([[1000, 'closing']]);
  });

  it('refuses a plain GET on the ws endpoint with 426', async () => {
    const runId = await startRun({ steps: [echo('a')] });
    const r = await api('GET', `/v1/runs/${runId}/ws`);
    expect(r.status).toBe(426);
    expect(r.body.error.code).toBe('upgrade_required');
  });

  it('checks ?after= on the ws endpoint as /events does: 400 before any upgrade', async () => {
    const runId = await startRun({ steps: [echo('a')] });
    await waitForRun(runId);
    for (const after of ['abc', '-5', 'NaN', '1e400', '1.5', '0x2', '', 'after=1&after=2']) {
      const query = after.includes('=') ? after : `after=${after}`;
      const res = await exports.default.fetch(
        new Request(`http://edgeplan.test/v1/runs/${runId}/ws?${query}`, {
          headers: { Upgrade: 'websocket' },
        }),
      );
      expect(res.status).toBe(400);
      const body = await res.json<Json>();
      expect(body.error.code).toBe('invalid_request');
      expect(body.error.message).toMatch(/^Invalid query parameters: after: /);
      const events = await api('GET', `/v1/runs/${runId}/events?${query}`);
      expect(events.status).toBe(400);
    }
    const { received, ws } = await openSocket(runId, 2);
    await until(() => received.length > 0);
    expect(received[0]!.seq).toBe(3);
    ws.close();
  });

  it('refuses /events after a seq past the run’s last event with 400 naming its last_seq, not an empty page', async () => {
    const runId = await startRun({ steps: [echo('a')] });
    await waitForRun(runId);
    const last = (await api('GET', `/v1/runs/${runId}`)).body.last_seq as number;
    const past = await api('GET', `/v1/runs/${runId}/events?after=${last + 1}`);
    expect(past.status).toBe(400);
    expect(past.body.error).toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining(`(seq ${last})`),
      details: { after: last + 1, last_seq: last },
    });
    // Its last seq itself is the end of the log: an empty page, to poll on from.
    const end = await api('GET', `/v1/runs/${runId}/events?after=${last}`);
    expect(end.body).toEqual({ events: [], next_after: last, has_more: false });
  });

  it('refuses the ws endpoint after a seq past the run’s last event with 400 before any upgrade, as /events', async () => {
    const runId = await startRun({ steps: [echo('a')] });
    await waitForRun(runId);
    const last = (await api('GET', `/v1/runs/${runId}`)).body.last_seq as number;
    const upgrade = (after: number) =>
      exports.default.fetch(
        new Request(`http://edgeplan.test/v1/runs/${runId}/ws?after=${after}`, {
          headers: { Upgrade: 'websocket' },
        }),
      );
    const past = await upgrade(last + 1);
    expect(past.status).toBe(400);
    expect((await past.json<Json>()).error).toMatchObject({
      code: 'invalid_request',
      details: { after: last + 1, last_seq: last },
    });
    const end = await upgrade(last);
    expect(end.status).toBe(101);
    end.webSocket!.accept();
    end.webSocket!.close();
  });

  it('answers the ws endpoint of an unknown run 404 not_found, upgrade or not', async () => {
    const id = 'run_0123456789abcdef0123456789abcdef';
    const plain = await api('GET', `/v1/runs/${id}/ws`);
    expect(plain.status).toBe(404);
    expect(plain.body.error).toEqual({ code: 'not_found', message: `No run "${id}"` });
    const res = await exports.default.fetch(
      new Request(`http://edgeplan.test/v1/runs/${id}/ws`, { headers: { Upgrade: 'websocket' } }),
    );
    expect(res.status).toBe(404);
    expect((await res.json<Json>()).error).toEqual({ code: 'not_found', message: `No run "${id}"` });
  });
});

describe('output_path "state" (merge into state)', () => {
  it('merges an object’s keys into the run state, live and replayed, and fails a step that returns text', async () => {
    const sleep = (id: string, value: unknown, extra: Record<string, unknown> = {}) => ({
      id,
      action: 'demo.sleep',
      parameters: { ms: 0, value },
      output_path: 'state',
      ...extra,
    });
    const runId = await startRun(
      {
        steps: [
          sleep('plan', { plan: { goal: 'g' }, count: 1 }),
          sleep('more', { count: 2, extra: '{{ state.plan.goal }}' }),
          sleep('bad', 'just text', { parameters: { ms: 0, value: 'about {{ state.extra }}' } }),
        ],
      },
      { retry_failed_steps: 0 },
    );
    const run = await waitForRun(runId);
    expect(run.status).toBe('failed');
    expect(run.state).toEqual({ plan: { goal: 'g' }, count: 2, extra: 'g' });
    const message = 'output_path "state" merges an object\'s keys into state; step "bad" returned a string';
    expect(run.steps.bad.error).toEqual({ code: 'bad_output', message, retryable: false });
    expect(run.error.message).toBe(`Step "bad" failed: ${message}`);
    const replayed = await api('GET', `/v1/runs/${runId}/state`);
    expect(replayed.status).toBe(200);
    expect(replayed.body.state).toEqual(run.state);
    const first = (await events(runId)).find((e) => e.event_type === 'ToolReturned')!;
    const early = await api('GET', `/v1/runs/${runId}/state?at=${first.seq}`);
    expect(early.body.state).toEqual({ plan: { goal: 'g' }, count: 1 });
  });
});

describe('inferred dependencies', () => {
  it('shows the dependencies references add, marked as inferred, in the run and its plan version', async () => {
    const runId = await startRun({
      steps: [
        echo('a'),
        echo('b'),
        echo('c', { dependencies: ['a'], parameters: { from: '{{ steps.b.output.id }}' } }),
      ],
    });
    const run = await waitForRun(runId);
    expect(run.plan.steps[2].dependencies).toEqual(['a']); // the plan as written
    expect(run.steps.c.inferred_dependencies).toEqual(['b']);
    expect(run.steps.a.inferred_dependencies).toBeUndefined();
    const v1 = await api('GET', `/v1/runs/${runId}/plans/1`);
    expect(v1.body.inferred_dependencies).toEqual({ c: ['b'] });
    expect(v1.body.steps[2].dependencies).toEqual(['a']);
  });
});

describe('run control', () => {
  it('cancels a running run, stopping its in-flight step, and refuses a second cancel', async () => {
    const runId = await startRun({
      steps: [
        { id: 'long', action: 'demo.sleep', parameters: { ms: 30_000 } },
        echo('after', { dependencies: ['long'] }),
      ],
    });
    await waitForRun(runId, (r) => r.step_statuses.long === 'running');
    const r = await api('POST', `/v1/runs/${runId}/cancel`, { reason: 'changed my mind' });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('cancelled');
    const run = await waitForRun(runId, (x) => x.step_statuses.long !== 'running');
    expect(run.status).toBe('cancelled');
    // Neither step failed: the one cut short and the one that never started are skipped, saying why.
    expect(run.step_statuses).toEqual({ long: 'skipped', after: 'skipped' });
    expect(run.steps.long.skip_reason).toBe('cancelled');
    expect(run.steps.after.skip_reason).toBe('cancelled');
    expect(run.counts).toMatchObject({ failed: 0, skipped: 2, pending: 0 });
    await abortAllDurableObjects(); // the step rows, read back from SQLite, say the same
    expect((await api('GET', `/v1/runs/${runId}`)).body.steps.after.skip_reason).toBe('cancelled');
    const again = await api('POST', `/v1/runs/${runId}/cancel`);
    expect(again.status).toBe(409);
  });

  it('skips the steps a failure left unable to run, and a retry runs them', async () => {
    const key = `unreachable-${Date.now()}`;
    const runId = await startRun(
      {
        steps: [
          { id: 'flaky', action: 'demo.flaky', parameters: { fail_times: 1, key, permanent: true } },
          echo('next', { dependencies: ['flaky'] }),
          echo('last', { dependencies: ['next'] }),
        ],
      },
      { retry_failed_steps: 0 },
    );
    const failed = await waitForRun(runId);
    expect(failed.status).toBe('failed');
    expect(failed.step_statuses).toEqual({ flaky: 'failed', next: 'skipped', last: 'skipped' });
    expect(failed.steps.next.skip_reason).toBe('run_terminated');
    expect(failed.counts.pending).toBe(0);
    expect((await api('POST', `/v1/runs/${runId}/retry`, {})).status).toBe(200);
    const done = await waitForRun(runId);
    expect(done.status).toBe('completed');
    expect(done.step_statuses).toEqual({ flaky: 'completed', next: 'completed', last: 'completed' });
  });

  it('a hung tool cannot wedge a run: the step times out and the run fails with the timeout', async () => {
    const runId = await startRun(
      { steps: [{ id: 'hang', action: 'demo.sleep', parameters: { ms: 60_000 }, timeout_ms: 100 }] },
      { retry_failed_steps: 0 },
    );
    const run = await waitForRun(runId);
    expect(run.status).toBe('failed');
    expect(run.steps.hang.error.code).toBe('timeout');
  });

  it('retrying one step of a cancelled run runs the dependency the cancel cut off first; never out of order', async () => {
    const runId = await startRun({
      steps: [
        { id: 's', action: 'demo.sleep', parameters: { ms: 400, value: 'S' } },
        echo('t', { dependencies: ['s'], parameters: { got: '{{ steps.s.output }}' } }),
      ],
    });
    await waitForRun(runId, (r) => r.step_statuses.s === 'running');
    expect((await api('POST', `/v1/runs/${runId}/cancel`)).status).toBe(200);
    const cancelled = await waitForRun(runId, (r) => r.step_statuses.s !== 'running');
    expect(cancelled.step_statuses).toEqual({ s: 'skipped', t: 'skipped' });
    const r = await api('POST', `/v1/runs/${runId}/retry`, { step_id: 't' });
    expect(r).toMatchObject({ status: 200, body: { status: 'running' } });
    const done = await waitForRun(runId);
    expect(done.status).toBe('completed');
    expect(done.step_statuses).toEqual({ s: 'completed', t: 'completed' });
    expect(done.step_results.t).toEqual({ got: 'S' });
    const log = (await api('GET', `/v1/runs/${runId}/events`)).body.events as Json[];
    const invoked = log.filter((e) => e.event_type === 'ToolInvoked').map((e) => e.payload.step_id);
    expect(invoked.slice(-2)).toEqual(['s', 't']);
  });

  it('refuses to retry a completed run', async () => {
    const runId = await startRun({ steps: [echo('a')] });
    await waitForRun(runId);
    const r = await api('POST', `/v1/runs/${runId}/retry`, {});
    expect(r.status).toBe(409);
    expect(r.body.error.details.reason).toBe('run_not_retryable');
  });

  it('reports plan.status with counts, progress and, on request, the subtasks', async () => {
    const runId = await startRun({ goal: 'g', steps: [echo('a'), echo('b', { dependencies: ['a'] })] });
    await waitForRun(runId);
    const plain = await api('GET', `/v1/runs/${runId}/status`);
    expect(plain.body).toMatchObject({
      status: { total: 2, completed: 2, in_progress: 0 },
      progress: 1,
      goal: 'g',
      success: true,
    });
    expect(plain.body.subtasks).toBeUndefined();
    const detailed = await api('GET', `/v1/runs/${runId}/status?include_details=true`);
    expect(detailed.body.subtasks.map((s: Json) => [s.id, s.status])).toEqual([
      ['a', 'completed'],
      ['b', 'completed'],
    ]);
    const open = await api('GET', `/v1/runs/${runId}/status?include_details=true&include_completed=false`);
    expect(open.body.subtasks).toEqual([]);
  });

  it('routes a failure to the error branch and skips the success branch, end to end', async () => {
    const runId = await startRun(
      {
        steps: [
          {
            id: 'pay',
            action: 'demo.flaky',
            parameters: { fail_times: 10, key: `pay-${Date.now()}` },
            output_path: 'state.receipt || state.error',
          },
          { id: 'confirm', action: 'demo.echo', parameters: { receipt: '{{ state.receipt }}' } },
          { id: 'report', action: 'demo.echo', parameters: { error: '{{ state.error.code }}' } },
        ],
      },
      { retry_failed_steps: 0 },
    );
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.step_statuses).toEqual({ pay: 'failed', confirm: 'skipped', report: 'completed' });
    expect(typeof run.step_results.report.error).toBe('string');
  });
});

describe('GET /v1/runs', () => {
  it('lists runs newest first with a status filter and a cursor that pages without repeats', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await startRun({ steps: [echo('a')] }));
    for (const id of ids) await waitForRun(id);
    const page1 = await api('GET', '/v1/runs?status=completed&limit=2');
    expect(page1.status).toBe(200);
    expect(page1.body.runs).toHaveLength(2);
    expect(page1.body.runs.every((r: Json) => r.status === 'completed')).toBe(true);
    const page2 = await api(
      'GET',
      `/v1/runs?status=completed&limit=2&cursor=${page1.body.next_cursor as string}`,
    );
    const seen = [...page1.body.runs, ...page2.body.runs].map((r: Json) => r.run_id as string);
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of ids) expect(seen).toContain(id);
    expect((await api('GET', '/v1/runs?cursor=garbage')).status).toBe(400);
    expect((await api('GET', '/v1/runs?status=nope')).status).toBe(400);
  });
});

describe('one answer for an unknown run, and 409s that say which status is needed', () => {
  const id = 'run_0123456789abcdef0123456789abcdef';
  const routes: [string, string, unknown][] = [
    ['GET', `/v1/runs/${id}`, undefined],
    ['GET', `/v1/runs/${id}/values?ref=final_output`, undefined],
    ['POST', `/v1/runs/${id}/cancel`, undefined],
    ['POST', `/v1/runs/${id}/retry`, undefined],
    ['POST', `/v1/runs/${id}/input`, { input: { a: 1 } }],
    ['POST', `/v1/runs/${id}/rollback`, { version: 1 }],
    ['POST', `/v1/runs/${id}/approval`, { decision: 'approve' }],
    ['POST', `/v1/runs/${id}/replan`, { reason: 'x' }],
  ];
  for (const [method, path, body] of routes) {
    it(`${method} ${path.replace(id, ':id')} of an unknown run: 404 No run "<id>"`, async () => {
      const r = await api(method, path, body);
      expect(r.status).toBe(404);
      expect(r.body.error).toEqual({ code: 'not_found', message: `No run "${id}"` });
    });
  }

  it('a decision or input for a run in the wrong status is 409 naming the status it has and needs', async () => {
    const runId = await startRun({ steps: [echo('a')] });
    await waitForRun(runId);
    const approval = await api('POST', `/v1/runs/${runId}/approval`, { decision: 'approve' });
    expect(approval.status).toBe(409);
    expect(approval.body.error.details).toEqual({
      reason: 'run_status',
      status: 'completed',
      needed: 'awaiting_approval',
    });
    const input = await api('POST', `/v1/runs/${runId}/input`, { input: { a: 1 } });
    expect(input.status).toBe(409);
    expect(input.body.error.details).toMatchObject({ reason: 'run_status', status: 'completed' });
  });
});

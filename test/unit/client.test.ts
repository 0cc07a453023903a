/**
 * `edgeplan/client` against scripted answers: the token, queries, errors as EdgeplanApiError, paging,
 * and `watch()` — polling and over a socket that drops mid-run, each event once and in order, ending
 * at RunTerminated. (test/e2e/cli.test.ts drives the same client against `wrangler dev`.)
 */
import { describe, expect, it } from 'vitest';
import { applyEvent, createClient, EdgeplanApiError, emptyView, type RunEvent } from '../../src/client';
import { getEventListeners } from 'node:events';

type Answer = { status: number; body: unknown };

/** A fetch that records requests and answers from a table (a function of the call count per key). */
function scripted(answers: Record<string, Answer | ((n: number) => Answer)>) {
  const seen: { method: string; url: string; auth: string | null; body: unknown }[] = [];
  const counts = new Map<string, number>();
  const fetch = (input: string, init?: RequestInit) => {
    const method = init?.method ?? 'GET';
    const headers = new Headers(init?.headers);
    seen.push({
      method,
      url: input,
      auth: headers.get('authorization'),
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
    });
    const key = `${method} ${input}`;
    const n = counts.get(key) ?? 0;
    counts.set(key, n + 1);
    const entry = answers[key];
    const a = (typeof entry === 'function' ? entry(n) : entry) ?? {
      status: 404,
      body: { error: { code: 'not_found', message: `no ${key}` } },
    };
    return Promise.resolve(new Response(JSON.stringify(a.body), { status: a.status }));
  };
  return { fetch: fetch as unknown as typeof globalThis.fetch, seen };
}

function event(seq: number, event_type: string, payload: unknown = {}): RunEvent {
  return {
    event_id: `e${seq}`,
    seq,
    event_type,
    timestamp: '2026-11-24T00:00:00.000Z',
    actor: 'run:run_1',
    references: { plan_id: 'p', plan_version: 1 },
    payload,
  } as RunEvent;
}
const terminated = (seq: number) => event(seq, 'RunTerminated', { status: 'completed', reason: 'done' });
/** Nothing after the last event (seq 2 to 5 in these scripts): the run has ended. */
const none = { status: 200, body: { events: [], next_after: 0, has_more: false } };
const ENDED = Object.fromEntries(
  [2, 3, 4, 5].map((seq) => [`GET http://api.test/v1/runs/run_1/events?after=${seq}&limit=1`, none]),
);

describe('edgeplan/client', () => {
  it('creates a run, reads it and its events, with the bearer token', async () => {
    const { fetch, seen } = scripted({
      'POST http://api.test/v1/runs': {
        status: 201,
        body: { run_id: 'run_1', status: 'running', links: {} },
      },
      'GET http://api.test/v1/runs/run_1': { status: 200, body: { run_id: 'run_1', status: 'completed' } },
      'GET http://api.test/v1/runs/run_1/events?after=2&limit=1000': {
        status: 200,
        body: { events: [event(3, 'RunStarted')], next_after: 3, has_more: false },
      },
    });
    const client = createClient({ baseUrl: 'http://api.test/', token: 't0k', fetch });
    const plan = { goal: 'g', steps: [{ id: 'a', action: 'demo.echo' }] };
    expect((await client.createRun({ plan })).run_id).toBe('run_1');
    expect((await client.getRun('run_1')).status).toBe('completed');
    expect((await client.events('run_1', { after: 2 })).map((e) => e.seq)).toEqual([3]);
    expect(seen[0]).toEqual({
      method: 'POST',
      url: 'http://api.test/v1/runs',
      auth: 'Bearer t0k',
      body: { plan },
    });
  });

  it('reads every page of events', async () => {
    const { fetch } = scripted({
      'GET http://api.test/v1/runs/run_1/events?after=0&limit=1000': {
        status: 200,
        body: { events: [event(1, 'RunCreated'), event(2, 'RunStarted')], next_after: 2, has_more: true },
      },
      'GET http://api.test/v1/runs/run_1/events?after=2&limit=1000': {
        status: 200,
        body: { events: [terminated(3)], next_after: 3, has_more: false },
      },
    });
    const client = createClient({ baseUrl: 'http://api.test', fetch });
    expect((await client.events('run_1')).map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  it('throws the API error with its status, code and details', async () => {
    const { fetch } = scripted({
      'POST http://api.test/v1/plans/validate': {
        status: 422,
        body: { error: { code: 'invalid_plan', message: 'bad', details: { errors: [{ code: 'cycle' }] } } },
      },
    });
    const client = createClient({ baseUrl: 'http://api.test', fetch });
    const err = await client.getRun('nope').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EdgeplanApiError);
    expect(err).toMatchObject({ status: 404, code: 'not_found' });
    const invalid = await client.validatePlan({ plan: { goal: 'g', steps: [] } }).catch((e: unknown) => e);
    expect(invalid).toMatchObject({
      status: 422,
      code: 'invalid_plan',
      details: { errors: [{ code: 'cycle' }] },
    });
  });

  it('says so when the API cannot be reached, and refuses a lazy createRun', async () => {
    const fetch = (() =>
      Promise.reject(new TypeError('connect ECONNREFUSED'))) as unknown as typeof globalThis.fetch;
    const client = createClient({ baseUrl: 'http://api.test', fetch });
    await expect(client.getRun('run_1')).rejects.toMatchObject({ code: 'unreachable' });
    await expect(
      client.createRun({ plan: { goal: 'g', steps: [] }, config: { mode: 'lazy' } }),
    ).rejects.toMatchObject({
      code: 'invalid_request',
    });
  });

  it('names the cause of an unreachable server, and gives up on one that never answers', async () => {
    const refused = (() =>
      Promise.reject(
        new TypeError('fetch failed', {
          cause: { code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:9' },
        }),
      )) as unknown as typeof globalThis.fetch;
    await expect(
      createClient({ baseUrl: 'http://api.test', fetch: refused }).getRun('run_1'),
    ).rejects.toMatchObject({
      code: 'unreachable',
      message: 'Cannot reach http://api.test: fetch failed (connect ECONNREFUSED 127.0.0.1:9)',
    });
    // A server that accepts the request and never answers: the fetch waits on its signal.
    const silent = ((_: string, init?: RequestInit) =>
      new Promise((_resolve, reject) =>
        init?.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'TimeoutError'))),
      )) as unknown as typeof globalThis.fetch;
    const client = createClient({ baseUrl: 'http://api.test', fetch: silent, timeoutMs: 50 });
    await expect(client.listTools()).rejects.toMatchObject({
      status: 0,
      code: 'timeout',
      message: 'No answer from http://api.test to GET /v1/tools within 0.05 s',
    });
  });

  it('builds action requests: approval with the link token, modify, retry of a step, rollback', async () => {
    const ok = { status: 200, body: { run_id: 'run_1', status: 'running' } };
    const { fetch, seen } = scripted({
      'POST http://api.test/v1/runs/run_1/approval?token=abc': ok,
      'POST http://api.test/v1/runs/run_1/approval': ok,
      'POST http://api.test/v1/runs/run_1/retry': ok,
      'POST http://api.test/v1/runs/run_1/rollback': ok,
    });
    const client = createClient({ baseUrl: 'http://api.test', fetch });
    await client.approve('run_1', { token: 'abc', comment: 'ok' });
    await client.modify('run_1', { edits: [{ op: 'remove_step', step_id: 'b' }] });
    await client.retry('run_1', 'b');
    await client.rollback('run_1', 1);
    expect(seen.map((s) => s.body)).toEqual([
      { decision: 'approve', comment: 'ok' },
      { decision: 'modify', edits: [{ op: 'remove_step', step_id: 'b' }] },
      { step_id: 'b' },
      { version: 1 },
    ]);
  });
});

describe('watch()', () => {
  it('polls /events: each event once, in order, and ends after RunTerminated', async () => {
    const { fetch, seen } = scripted({
      ...ENDED,
      'GET http://api.test/v1/runs/run_1/events?after=0&limit=500': {
        status: 200,
        body: { events: [event(1, 'RunCreated'), event(2, 'RunStarted')], next_after: 2, has_more: false },
      },
      'GET http://api.test/v1/runs/run_1/events?after=2&limit=500': (n) => ({
        status: 200,
        body:
          n === 0
            ? { events: [], next_after: 2, has_more: false }
            : { events: [terminated(3)], next_after: 3, has_more: false },
      }),
    });
    const client = createClient({ baseUrl: 'http://api.test', fetch });
    const got: number[] = [];
    for await (const e of client.watch('run_1', { transport: 'poll', pollIntervalMs: 1 })) got.push(e.seq);
    expect(got).toEqual([1, 2, 3]);
    expect(seen.filter((s) => s.url.includes('after=2')).length).toBe(2);
  });

  it('polls with a signal without piling an abort listener onto it per poll', async () => {
    const { fetch } = scripted({
      ...ENDED,
      'GET http://api.test/v1/runs/run_1/events?after=0&limit=500': {
        status: 200,
        body: { events: [event(1, 'RunCreated')], next_after: 1, has_more: false },
      },
      // 30 empty polls (each one a sleep on the signal), then the end.
      'GET http://api.test/v1/runs/run_1/events?after=1&limit=500': (n) => ({
        status: 200,
        body:
          n < 30
            ? { events: [], next_after: 1, has_more: false }
            : { events: [terminated(2)], next_after: 2, has_more: false },
      }),
    });
    const client = createClient({ baseUrl: 'http://api.test', fetch });
    const controller = new AbortController();
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const got: number[] = [];
      const opts = { transport: 'poll' as const, pollIntervalMs: 1, signal: controller.signal };
      for await (const e of client.watch('run_1', opts)) got.push(e.seq);
      expect(got).toEqual([1, 2]);
      expect(getEventListeners(controller.signal, 'abort').length).toBeLessThanOrEqual(1);
      await new Promise((r) => setImmediate(r));
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('reopens a dropped socket after the last seq and repeats nothing', async () => {
    const opened: string[] = [];
    /** A socket that sends its script, then closes (a dropped connection) unless it ends the run. */
    class ScriptedSocket extends EventTarget {
      static scripts: RunEvent[][] = [
        [event(1, 'RunCreated'), event(2, 'RunStarted')],
        // The server sends the backlog after ?after=2 again from 3; one duplicate to be safe.
        [event(2, 'RunStarted'), event(3, 'StepScheduled'), terminated(4)],
      ];
      constructor(readonly url: string) {
        super();
        opened.push(url);
        const script = ScriptedSocket.scripts.shift() ?? [];
        setTimeout(() => {
          this.dispatchEvent(new Event('open'));
          for (const e of script)
            this.dispatchEvent(new MessageEvent('message', { data: JSON.stringify(e) }));
          this.dispatchEvent(new Event('close'));
        }, 1);
      }
      close() {}
    }
    const client = createClient({
      baseUrl: 'http://api.test',
      fetch: scripted(ENDED).fetch,
      WebSocket: ScriptedSocket as unknown as typeof WebSocket,
    });
    const reconnects: number[] = [];
    const got: string[] = [];
    for await (const e of client.watch('run_1', { onReconnect: (_n, after) => reconnects.push(after) }))
      got.push(`${e.seq}:${e.event_type}`);
    expect(got).toEqual(['1:RunCreated', '2:RunStarted', '3:StepScheduled', '4:RunTerminated']);
    expect(opened).toEqual([
      'ws://api.test/v1/runs/run_1/ws?after=0',
      'ws://api.test/v1/runs/run_1/ws?after=2',
    ]);
    expect(reconnects).toEqual([2]);
  });

  it('falls back to polling when the socket never opens', async () => {
    class RefusedSocket extends EventTarget {
      constructor() {
        super();
        setTimeout(() => this.dispatchEvent(new Event('error')), 1);
      }
      close() {}
    }
    const { fetch } = scripted({
      ...ENDED,
      'GET http://api.test/v1/runs/run_1/events?after=0&limit=500': {
        status: 200,
        body: { events: [event(1, 'RunCreated'), terminated(2)], next_after: 2, has_more: false },
      },
    });
    const client = createClient({
      baseUrl: 'http://api.test',
      fetch,
      WebSocket: RefusedSocket as unknown as typeof WebSocket,
    });
    const got: number[] = [];
    for await (const e of client.watch('run_1')) got.push(e.seq);
    expect(got).toEqual([1, 2]);
  });

  it('goes on past a RunTerminated when the run was retried, and ends at the one that leaves it ended', async () => {
    const failed = event(3, 'RunTerminated', { status: 'failed', reason: 'step f failed' });
    const { fetch } = scripted({
      // The failure at seq 3 is followed by more (the run was retried); nothing follows seq 5.
      'GET http://api.test/v1/runs/run_1/events?after=3&limit=1': {
        status: 200,
        body: { events: [event(4, 'RunResumed')], next_after: 4, has_more: true },
      },
      'GET http://api.test/v1/runs/run_1/events?after=5&limit=1': none,
      'GET http://api.test/v1/runs/run_1/events?after=0&limit=500': {
        status: 200,
        body: {
          events: [
            event(1, 'RunCreated'),
            event(2, 'RunStarted'),
            failed,
            event(4, 'RunResumed'),
            terminated(5),
          ],
          next_after: 5,
          has_more: false,
        },
      },
    });
    const client = createClient({ baseUrl: 'http://api.test', fetch });
    const got: string[] = [];
    for await (const e of client.watch('run_1', { transport: 'poll' })) got.push(e.event_type);
    expect(got).toEqual(['RunCreated', 'RunStarted', 'RunTerminated', 'RunResumed', 'RunTerminated']);
  });
  it('ends after the outcome of an attempt that outlived the run, which follows its RunTerminated', async () => {
    const cancelled = event(3, 'RunTerminated', { status: 'cancelled', reason: 'cancelled by request' });
    const late = event(4, 'ToolReturned', {
      step_id: 'a',
      attempt: 1,
      success: true,
      output: 1,
      latency_ms: 5,
      after_run_ended: true,
    });
    const after3 = { status: 200, body: { events: [late], next_after: 4, has_more: false } };
    const { fetch } = scripted({
      ...ENDED,
      'GET http://api.test/v1/runs/run_1/events?after=3&limit=1': after3,
      'GET http://api.test/v1/runs/run_1/events?after=0&limit=500': {
        status: 200,
        body: { events: [event(1, 'RunCreated'), event(2, 'RunStarted'), cancelled, late], next_after: 4 },
      },
      'GET http://api.test/v1/runs/run_1/events?after=3&limit=500': after3,
      'GET http://api.test/v1/runs/run_1/status': { status: 200, body: { run_status: 'cancelled' } },
    });
    const client = createClient({ baseUrl: 'http://api.test', fetch });
    const got: number[] = [];
    for await (const e of client.watch('run_1', { transport: 'poll', pollIntervalMs: 1 })) got.push(e.seq);
    expect(got).toEqual([1, 2, 3, 4]);
    // Resumed after the RunTerminated (the dashboard following the run again): the late outcome, then the end.
    const resumed: number[] = [];
    for await (const e of client.watch('run_1', { after: 3, transport: 'poll', pollIntervalMs: 1 }))
      resumed.push(e.seq);
    expect(resumed).toEqual([4]);
  });

  it('ends at once when resumed after the run’s last event, or past it', async () => {
    const { fetch, seen } = scripted({
      ...ENDED,
      'GET http://api.test/v1/runs/run_1/events?after=50&limit=1': none,
      'GET http://api.test/v1/runs/run_1/status': { status: 200, body: { run_status: 'completed' } },
    });
    const client = createClient({ baseUrl: 'http://api.test', fetch });
    for (const after of [5, 50]) {
      const got: number[] = [];
      for await (const e of client.watch('run_1', { after, transport: 'poll' })) got.push(e.seq);
      expect(got).toEqual([]);
    }
    expect(seen.filter((s) => s.url.endsWith('/status'))).toHaveLength(2);
    // A run still going at that seq is followed as usual: here it ends with the next event.
    const going = scripted({
      ...ENDED,
      'GET http://api.test/v1/runs/run_1/status': { status: 200, body: { run_status: 'running' } },
      'GET http://api.test/v1/runs/run_1/events?after=2&limit=500': {
        status: 200,
        body: { events: [terminated(3)], next_after: 3, has_more: false },
      },
    });
    const got: number[] = [];
    const live = createClient({ baseUrl: 'http://api.test', fetch: going.fetch });
    for await (const e of live.watch('run_1', { after: 2, transport: 'poll', pollIntervalMs: 1 }))
      got.push(e.seq);
    expect(got).toEqual([3]);
  });

  it('follows a run that ended between the look at its last event and the look at its status', async () => {
    // Resumed after seq 7 while the run is at 7 and going (the dashboard after Approve): nothing after
    // 7 yet; by the time its status is read the run has gone on to 9 and ended.
    const { fetch } = scripted({
      'GET http://api.test/v1/runs/run_1/events?after=7&limit=1': (n) =>
        n === 0 ? none : { status: 200, body: { events: [event(8, 'ToolReturned')], has_more: true } },
      'GET http://api.test/v1/runs/run_1/status': { status: 200, body: { run_status: 'completed' } },
      'GET http://api.test/v1/runs/run_1/events?after=7&limit=500': {
        status: 200,
        body: { events: [event(8, 'ToolReturned'), terminated(9)], next_after: 9, has_more: false },
      },
      // The status says ended, so each event caught up on is asked whether the run is over at it.
      'GET http://api.test/v1/runs/run_1/events?after=8&limit=1': {
        status: 200,
        body: { events: [terminated(9)], has_more: false },
      },
      'GET http://api.test/v1/runs/run_1/events?after=9&limit=1': none,
    });
    const client = createClient({ baseUrl: 'http://api.test', fetch });
    const got: number[] = [];
    for await (const e of client.watch('run_1', { after: 7, transport: 'poll' })) got.push(e.seq);
    expect(got).toEqual([8, 9]);
  });

  it('waits out a server that goes away after it was reached (a restart), and gives up after reconnectForMs', async () => {
    /** The API answers, then cannot be reached for `down` requests, then answers again. */
    const restarting = (down: number) => {
      let n = 0;
      const { fetch: api } = scripted({
        ...ENDED,
        'GET http://api.test/v1/runs/run_1/events?after=0&limit=500': {
          status: 200,
          body: { events: [event(1, 'RunCreated')], next_after: 1, has_more: false },
        },
        'GET http://api.test/v1/runs/run_1/events?after=1&limit=500': {
          status: 200,
          body: { events: [event(2, 'RunStarted'), terminated(3)], next_after: 3, has_more: false },
        },
      });
      return ((url: string, init?: RequestInit) => {
        n += 1;
        if (n >= 2 && n < 2 + down) return Promise.reject(new TypeError('fetch failed'));
        // A proxy whose worker is not up yet answers 502 with a page of its own.
        if (n === 2 + down) return Promise.resolve(new Response('<html>Bad gateway</html>', { status: 502 }));
        return api(url, init);
      }) as unknown as typeof globalThis.fetch;
    };
    const reconnects: [number, number][] = [];
    // retry: false — the watch's own waiting is what is tested; the client's call would wait out the
    // 502 by itself (client-retry.test.ts).
    const client = createClient({ baseUrl: 'http://api.test', fetch: restarting(3), retry: false });
    const got: number[] = [];
    const options = {
      transport: 'poll' as const,
      pollIntervalMs: 1,
      onReconnect: (attempt: number, after: number) => reconnects.push([attempt, after]),
      onReconnected: () => reconnects.push([0, -1]),
    };
    for await (const e of client.watch('run_1', options)) got.push(e.seq);
    expect(got).toEqual([1, 2, 3]);
    // Four tries, then the server answers again: told once.
    expect(reconnects).toEqual([
      [1, 1],
      [2, 1],
      [3, 1],
      [4, 1],
      [0, -1],
    ]);
    // Down for longer than the watch waits: the last error, once it has tried for reconnectForMs.
    const gone = createClient({ baseUrl: 'http://api.test', fetch: restarting(1_000_000), retry: false });
    const seen: number[] = [];
    const err = await (async () => {
      for await (const e of gone.watch('run_1', { ...options, reconnectForMs: 300 })) seen.push(e.seq);
    })().catch((e: unknown) => e);
    expect(seen).toEqual([1]);
    expect(err).toMatchObject({ code: 'unreachable' });
    expect(reconnects.filter(([n]) => n === 0)).toHaveLength(1); // only the first watch's
  });

  it('throws at once when the server was never reached (a wrong URL)', async () => {
    const down = (() => Promise.reject(new TypeError('fetch failed'))) as unknown as typeof globalThis.fetch;
    const reconnects: number[] = [];
    const client = createClient({ baseUrl: 'http://api.test', fetch: down });
    const watching = (async () => {
      for await (const _ of client.watch('run_1', {
        transport: 'poll',
        onReconnect: (n) => reconnects.push(n),
      }));
    })();
    await expect(watching).rejects.toMatchObject({ code: 'unreachable' });
    expect(reconnects).toEqual([]);
  });

  it('with transport "websocket", says why the socket was refused when the API says so', async () => {
    class RefusedSocket extends EventTarget {
      constructor() {
        super();
        setTimeout(() => this.dispatchEvent(new Event('error')), 1);
      }
      close() {}
    }
    const client = createClient({
      baseUrl: 'http://api.test',
      fetch: scripted({}).fetch,
      WebSocket: RefusedSocket as unknown as typeof WebSocket,
    });
    const watching = (async () => {
      for await (const _ of client.watch('run_nope', { transport: 'websocket' }));
    })();
    // It said `websocket_refused` (status 0) for an unknown run or a wrong token.
    await expect(watching).rejects.toMatchObject({ status: 404, code: 'not_found' });
  });
});

describe('a decision naming its plan version, to a service from before plan_version', () => {
  const url = 'POST http://api.test/v1/runs/r1/approval';
  const unknownKey = {
    status: 400,
    body: { error: { code: 'invalid_request', message: '(root): Unknown key "plan_version"' } },
  };

  it('is sent again without the version, which that service refused as a key it does not know', async () => {
    const { fetch, seen } = scripted({
      [url]: (n) => (n === 0 ? unknownKey : { status: 200, body: { run_id: 'r1', status: 'running' } }),
    });
    const client = createClient({ baseUrl: 'http://api.test', fetch, retry: false });
    await expect(client.approve('r1', { planVersion: 2, approver: 'Ada' })).resolves.toEqual({
      run_id: 'r1',
      status: 'running',
    });
    expect(seen.map((s) => s.body)).toEqual([
      { decision: 'approve', approver: 'Ada', plan_version: 2 },
      { decision: 'approve', approver: 'Ada' },
    ]);
  });

  it('is not sent again for any other refusal, nor when it named no version', async () => {
    const other = {
      status: 400,
      body: { error: { code: 'invalid_request', message: '(root): Unknown key "coment"' } },
    };
    const a = scripted({ [url]: other });
    const client = createClient({ baseUrl: 'http://api.test', fetch: a.fetch, retry: false });
    await expect(client.approve('r1', { planVersion: 2 })).rejects.toMatchObject({ status: 400 });
    expect(a.seen).toHaveLength(1);
    const b = scripted({ [url]: unknownKey });
    const plain = createClient({ baseUrl: 'http://api.test', fetch: b.fetch, retry: false });
    await expect(plain.approve('r1')).rejects.toMatchObject({ status: 400 });
    expect(b.seen).toHaveLength(1);
  });
});

describe('an answer naming its question, to a service from before question_seq', () => {
  const url = 'POST http://api.test/v1/runs/r1/input';
  // What such a service's Worker says of an unknown key beside step_id (src/approval/answer.ts then).
  const unknownKey = {
    status: 400,
    body: {
      error: {
        code: 'invalid_request',
        message:
          'With step_id, the body is an answer: {"input", "step_id", "approver"?} and nothing else. Unknown key "question_seq"; send {"input": <the answer>, "step_id": "f"}',
      },
    },
  };
  const ok = { status: 200, body: { run_id: 'r1', status: 'running' } };

  it('is sent again without the question, which that service refused as a key it does not know', async () => {
    const { fetch, seen } = scripted({ [url]: (n) => (n === 0 ? unknownKey : ok) });
    const client = createClient({ baseUrl: 'http://api.test', fetch, retry: false });
    await expect(
      client.sendInput('r1', { action: 'skip' }, { stepId: 'f', questionSeq: 7, approver: 'Ada' }),
    ).resolves.toEqual({ run_id: 'r1', status: 'running' });
    expect(seen.map((s) => s.body)).toEqual([
      { input: { action: 'skip' }, step_id: 'f', approver: 'Ada', question_seq: 7 },
      { input: { action: 'skip' }, step_id: 'f', approver: 'Ada' },
    ]);
  });

  it('is sent only beside step_id, and not again for any other refusal', async () => {
    // Without step_id such a service would take the body whole as the input: not sent.
    const a = scripted({ [url]: ok });
    const client = createClient({ baseUrl: 'http://api.test', fetch: a.fetch, retry: false });
    await client.sendInput('r1', { action: 'skip' }, { questionSeq: 7 });
    expect(a.seen.map((s) => s.body)).toEqual([{ input: { action: 'skip' } }]);
    const closed = { status: 409, body: { error: { code: 'question_closed', message: 'answered already' } } };
    const b = scripted({ [url]: closed });
    const again = createClient({ baseUrl: 'http://api.test', fetch: b.fetch, retry: false });
    await expect(again.sendInput('r1', 'x', { stepId: 'f', questionSeq: 7 })).rejects.toMatchObject({
      status: 409,
      code: 'question_closed',
    });
    expect(b.seen).toHaveLength(1);
  });
});

describe('the question a run view waits on', () => {
  it('carries its id, the seq of the InputRequested that asked it, which an answer names', () => {
    const asked = {
      seq: 12,
      event_type: 'InputRequested',
      timestamp: '2026-11-30T00:00:00.000Z',
      payload: { reason: 'step f failed; how should the run continue?', step_id: 'f' },
      references: { step_id: 'f' },
    } as unknown as RunEvent;
    expect(applyEvent(emptyView('r1'), asked).waiting).toMatchObject({
      kind: 'input',
      step_id: 'f',
      question_seq: 12,
    });
  });
});

/**
 * edgeplan/client sends again, by itself, what the server refused for now when that is safe
 * (src/client/retry-policy.ts), after the server's Retry-After — against a real HTTP server on
 * loopback that answers a refusal first. Long waits run on fake timers; one case waits a real
 * Retry-After of 1 s. (Through the Worker: test/workers/client-retry.test.ts.)
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createClient, EdgeplanApiError, type ClientOptions, type RetryNotice } from '../../src/client';
import { retryAfterMs } from '../../src/client/retry-after';

type Answer = { status: number; headers?: Record<string, string>; body: unknown };
type Seen = { method: string; url: string; key: string | undefined; body: string };

let server: Server;
let base = '';
let answers: Answer[] = [];
const seen: Seen[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const key = req.headers['idempotency-key'];
      seen.push({ method: req.method!, url: req.url!, key: typeof key === 'string' ? key : undefined, body });
      const next = answers.shift() ?? {
        status: 500,
        body: { error: { code: 'internal', message: 'no answer scripted' } },
      };
      const text = typeof next.body === 'string' ? next.body : JSON.stringify(next.body);
      res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
      res.end(text);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => server.close(r)));
afterEach(() => {
  vi.useRealTimers();
  answers = [];
  seen.length = 0;
});

const refusal = (status: number, code: string, retryAfter?: string): Answer => ({
  status,
  ...(retryAfter === undefined ? {} : { headers: { 'retry-after': retryAfter } }),
  body: { error: { code, message: `refused: ${code}` } },
});
const run = { run_id: 'run_1', status: 'running', links: {} };
const plan = { plan: { goal: 'g', steps: [{ id: 'a', action: 'demo.echo' }] } };

/** A client of the loopback server, and a promise of its next retry notice. */
function client(options: Partial<ClientOptions> = {}) {
  const notices: RetryNotice[] = [];
  let notified: (n: RetryNotice) => void = () => undefined;
  const c = createClient({
    baseUrl: base,
    ...options,
    onRetry: (n) => {
      notices.push(n);
      notified(n);
    },
  });
  const nextRetry = () => new Promise<RetryNotice>((r) => (notified = r));
  return { client: c, notices, nextRetry };
}

/** What a promise rejected with. */
const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e,
  );

describe('a refusal the server says to send again', () => {
  it('sends a GET answered 429 with Retry-After: 1 again after that second, and answers with the run', async () => {
    answers = [refusal(429, 'rate_limited', '1'), { status: 200, body: { ...run, status: 'completed' } }];
    const { client: c, notices } = client();
    const got = await c.getRun('run_1');
    expect(got).toMatchObject({ run_id: 'run_1', status: 'completed' });
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual(['GET /v1/runs/run_1', 'GET /v1/runs/run_1']);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ method: 'GET', path: '/v1/runs/run_1', retry: 1 });
    expect(notices[0]!.error).toMatchObject({ status: 429, code: 'rate_limited', retryAfterMs: 1000 });
    // Never sooner than asked; at most a tenth more (the spread between clients).
    expect(notices[0]!.waitMs).toBeGreaterThanOrEqual(1000);
    expect(notices[0]!.waitMs).toBeLessThanOrEqual(1100);
  });

  it('sends createRun refused 503 deploy_in_progress again after Retry-After: 60, with the same Idempotency-Key and body', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    answers = [refusal(503, 'deploy_in_progress', '60'), { status: 201, body: run }];
    const { client: c, nextRetry } = client();
    const retried = nextRetry();
    const created = c.createRun(plan);
    const notice = await retried;
    expect(notice.error).toMatchObject({ status: 503, code: 'deploy_in_progress', retryAfterMs: 60_000 });
    expect(seen).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(notice.waitMs);
    expect(await created).toMatchObject({ run_id: 'run_1' });
    expect(seen).toHaveLength(2);
    expect(seen[0]!.key).toMatch(/^[0-9a-f-]{32,36}$/);
    expect(seen[1]!.key).toBe(seen[0]!.key);
    expect(seen[1]!.body).toBe(seen[0]!.body);
  });

  it('reads Retry-After as an HTTP date too, and backs off by itself without one', () => {
    const now = Date.parse('2026-11-29T22:59:30Z');
    expect(retryAfterMs('Sun, 29 Nov 2026 23:00:00 GMT', now)).toBe(30_000);
    expect(retryAfterMs('Sun, 29 Nov 2026 22:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('60')).toBe(60_000);
    for (const junk of ['', ' ', '-3', '1.5', 'soon', null, undefined])
      expect(retryAfterMs(junk)).toBeUndefined();
  });

  it('sends a GET answered by a proxy’s 502 page (no Retry-After) again after its own backoff', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    answers = [
      { status: 502, body: '<html>Bad gateway</html>' },
      { status: 200, body: run },
    ];
    const { client: c, nextRetry } = client();
    const retried = nextRetry();
    const got = c.getRun('run_1');
    const notice = await retried;
    expect(notice.error).toMatchObject({ status: 502, code: 'invalid_response' });
    expect(notice.waitMs).toBeGreaterThanOrEqual(1000);
    await vi.advanceTimersByTimeAsync(notice.waitMs);
    expect(await got).toMatchObject({ run_id: 'run_1' });
  });

  it('deletes a run whose deletion was pending, answering the deleted run when the retry finds it gone', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    answers = [refusal(503, 'deletion_pending', '60'), refusal(404, 'not_found')];
    const { client: c, nextRetry } = client();
    const retried = nextRetry();
    const deleted = c.deleteRun('run_1');
    await vi.advanceTimersByTimeAsync((await retried).waitMs);
    expect(await deleted).toEqual({ run_id: 'run_1', child_runs: [] });
    expect(seen.map((s) => s.method)).toEqual(['DELETE', 'DELETE']);
    // A plain 404 is still a 404.
    answers = [refusal(404, 'not_found')];
    expect(await failure(c.deleteRun('run_2'))).toMatchObject({ status: 404, code: 'not_found' });
  });
});

describe('what is not sent again', () => {
  it('does not send again a POST a proxy answered 502/503 without a code of ours: it may have been taken', async () => {
    answers = [
      { status: 503, headers: { 'retry-after': '1' }, body: '<html>Service Unavailable</html>' },
      { status: 502, body: { error: { code: 'bad_gateway', message: 'upstream reset' } } },
    ];
    const { client: c, notices } = client();
    expect(await failure(c.approve('run_1'))).toMatchObject({ status: 503, code: 'invalid_response' });
    expect(await failure(c.sendInput('run_1', { more: 1 }))).toMatchObject({
      status: 502,
      code: 'bad_gateway',
    });
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      'POST /v1/runs/run_1/approval',
      'POST /v1/runs/run_1/input',
    ]);
    expect(notices).toEqual([]);
  });

  it('sends a POST again after 429 rate_limited, which refuses before anything ran', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    answers = [refusal(429, 'rate_limited', '10'), { status: 200, body: { status: 'cancelled' } }];
    const { client: c, nextRetry } = client();
    const retried = nextRetry();
    const cancelled = c.cancel('run_1', 'enough');
    await vi.advanceTimersByTimeAsync((await retried).waitMs);
    expect(await cancelled).toEqual({ status: 'cancelled' });
    expect(seen.map((s) => s.body)).toEqual(['{"reason":"enough"}', '{"reason":"enough"}']);
  });

  it('never sends again a 500, a 409 or a 422', async () => {
    answers = [
      refusal(500, 'internal'),
      {
        status: 409,
        headers: { 'retry-after': '30' },
        body: { error: { code: 'conflict', message: 'deleted', details: { reason: 'run_deleted' } } },
      },
      refusal(422, 'idempotency_key_reused'),
    ];
    const { client: c } = client();
    expect(await failure(c.getRun('run_1'))).toMatchObject({ status: 500, code: 'internal' });
    expect(await failure(c.createRun(plan))).toMatchObject({
      status: 409,
      code: 'conflict',
      retryAfterMs: 30_000,
    });
    expect(await failure(c.createRun(plan))).toMatchObject({ status: 422, code: 'idempotency_key_reused' });
    expect(seen).toHaveLength(3);
  });

  it('sends nothing again with retry: false or maxRetries: 0', async () => {
    for (const off of [{ retry: false }, { maxRetries: 0 }]) {
      answers = [refusal(503, 'deploy_in_progress', '1')];
      const { client: c, notices } = client(off);
      expect(await failure(c.createRun(plan))).toMatchObject({
        status: 503,
        code: 'deploy_in_progress',
        retryAfterMs: 1000,
      });
      expect(notices).toEqual([]);
    }
    expect(seen).toHaveLength(2);
  });
});

describe('the bounds of a retry', () => {
  it('gives up at once, with the server’s error and code, when Retry-After is longer than maxRetryWaitMs', async () => {
    answers = [refusal(503, 'run_newer_format', '300')];
    const { client: c, notices } = client();
    const err = await failure(c.getRun('run_1'));
    expect(err).toBeInstanceOf(EdgeplanApiError);
    expect(err).toMatchObject({ status: 503, code: 'run_newer_format', retryAfterMs: 300_000 });
    expect((err as Error).message).toBe(
      'refused: run_newer_format (not sent again: the answer asked to wait 300 s (Retry-After), longer than the 120 s the client still waits for one request (maxRetryWaitMs))',
    );
    expect(notices).toEqual([]);
    expect(seen).toHaveLength(1);
  });

  it('counts every wait of one request against maxRetryWaitMs, and stops after maxRetries', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    answers = [refusal(503, 'deploy_in_progress', '60'), refusal(503, 'deploy_in_progress', '60')];
    const { client: c, nextRetry } = client({ maxRetryWaitMs: 90_000 });
    const retried = nextRetry();
    const created = failure(c.createRun(plan));
    await vi.advanceTimersByTimeAsync((await retried).waitMs);
    const err = (await created) as EdgeplanApiError;
    expect(err).toMatchObject({ status: 503, code: 'deploy_in_progress' });
    expect(err.message).toContain('longer than the 30 s the client still waits for one request');
    expect(err.retriedAfter).toMatchObject({ code: 'deploy_in_progress' });
    expect(seen).toHaveLength(2);

    answers = [
      refusal(429, 'rate_limited', '1'),
      refusal(429, 'rate_limited', '1'),
      refusal(429, 'rate_limited', '1'),
    ];
    const twice = client({ maxRetries: 2 });
    let retries = 0;
    const listed = failure(twice.client.listRuns());
    while (retries < 2) {
      await vi.advanceTimersByTimeAsync((await twice.nextRetry()).waitMs);
      retries++;
    }
    expect(await listed).toMatchObject({
      status: 429,
      code: 'rate_limited',
      message: 'refused: rate_limited',
    });
    expect(seen).toHaveLength(5);
  });

  it('does not wait past createRun’s own timeoutMs: the refusal is thrown at once', async () => {
    answers = [refusal(503, 'deploy_in_progress', '60')];
    const { client: c, notices } = client();
    const err = await failure(c.createRun(plan, { timeoutMs: 10_000 }));
    expect(err).toMatchObject({ status: 503, code: 'deploy_in_progress' });
    expect((err as Error).message).toContain("longer than the 10 s left of the call's own timeout");
    expect(notices).toEqual([]);
    expect(seen).toHaveLength(1);
  });

  it('stops a wait when the caller’s AbortSignal aborts: `aborted`, after the refusal it waited out, nothing sent again', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    answers = [refusal(503, 'deploy_in_progress', '60')];
    const { client: c, nextRetry } = client();
    const stop = new AbortController();
    const retried = nextRetry();
    const created = failure(c.createRun(plan, { signal: stop.signal }));
    await retried;
    stop.abort();
    const err = (await created) as EdgeplanApiError;
    expect(err).toMatchObject({ status: 0, code: 'aborted' });
    expect(err.retriedAfter).toMatchObject({ status: 503, code: 'deploy_in_progress' });
    await vi.advanceTimersByTimeAsync(120_000);
    expect(seen).toHaveLength(1);

    // The client's own signal stops a GET's wait the same way.
    answers = [refusal(429, 'rate_limited', '60')];
    const all = new AbortController();
    const quiet = client({ signal: all.signal });
    const waiting = quiet.nextRetry();
    const got = failure(quiet.client.getRun('run_1'));
    await waiting;
    all.abort();
    expect(await got).toMatchObject({
      code: 'aborted',
      message: expect.stringContaining('(429 rate_limited)') as string,
    });
    expect(seen).toHaveLength(2);
  });
});

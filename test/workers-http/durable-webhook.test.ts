/**
 * Approval webhooks are durable side work (issue 10): each delivery attempt is an event, a failed one
 * is tried again with backoff, and one lost with its instance is sent again by the run's alarm —
 * through the runtime's own fetch to a real server on 127.0.0.1.
 */
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { api, events, startRun, waitForRun, type Json } from '../workers/helpers';
import { base, hits } from './loopback';

const plan = { goal: 'approve me', steps: [{ id: 'a', action: 'demo.echo', parameters: { v: 1 } }] };
afterEach(() => vi.restoreAllMocks());

/** The log lines (JSON) written to console.error about run `runId`. */
const loggedAbout = (spy: { mock: { calls: unknown[][] } }, runId: string) =>
  spy.mock.calls.map((args) => JSON.parse(String(args[0])) as Json).filter((line) => line.run_id === runId);

const attempts = async (runId: string) =>
  (await events(runId))
    .filter((e) => e.event_type === 'ApprovalWebhookAttempted')
    .map((e) => e.payload as Json);

describe('approval webhook delivery', () => {
  // The retries wait 1 s, then 2 s: 3 s of clock at least (3.4 s measured). Its wait for them (8 s)
  // was cut at vitest's 5 s default, too little for a loaded machine.
  it('records every attempt and retries a failing receiver with backoff until it takes the webhook', async () => {
    const path = `/fail-first/2/${crypto.randomUUID()}`;
    const runId = await startRun(plan, {
      require_plan_approval: true,
      approval: { webhook_url: `${base}${path}`, timeout_s: 600 },
    });
    await vi.waitFor(async () => expect((await attempts(runId)).some((a) => a.ok)).toBe(true), {
      timeout: 15_000,
      interval: 100,
    });
    const tried = await attempts(runId);
    expect(tried.map((a) => [a.attempt, a.ok, a.status])).toEqual([
      [1, false, 503],
      [2, false, 503],
      [3, true, 200],
    ]);
    expect(tried[0]!.next_attempt_at).toBeGreaterThan(0);
    expect(tried[2]!.next_attempt_at).toBeNull();
    expect(await hits(path)).toBe(3);
  }, 20_000);

  // docs/operating.md, approval_webhook_not_delivered: the approver hears of the run only through its
  // webhook, so the operator is told of a failing receiver — the first failure, and the last.
  it('logs the first failed delivery, not the retries between, as approval_webhook_not_delivered', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const path = `/fail-first/2/${crypto.randomUUID()}`;
    const runId = await startRun(plan, {
      require_plan_approval: true,
      approval: { webhook_url: `${base}${path}?token=s3cret`, timeout_s: 600 },
    });
    await vi.waitFor(async () => expect((await attempts(runId)).some((a) => a.ok)).toBe(true), {
      timeout: 15_000,
      interval: 100,
    });
    const logged = loggedAbout(errors, runId);
    expect(logged).toEqual([
      {
        level: 'error',
        event: 'approval_webhook_not_delivered',
        message: expect.stringMatching(
          /attempt 1 failed \(http_error: Webhook to http:\/\/127\.0\.0\.1:\d+ answered 503\); it is sent again at /,
        ),
        run_id: runId,
        attempt: 1,
        code: 'http_error',
      },
    ]);
    expect(JSON.stringify(logged)).not.toContain('s3cret');
  }, 20_000);

  it('logs a delivery the receiver refuses, which is not sent again, saying to decide through the API', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const runId = await startRun(plan, {
      require_plan_approval: true,
      approval: { webhook_url: `${base}/status/404`, timeout_s: 600 },
    });
    await vi.waitFor(async () => expect(await attempts(runId)).toHaveLength(1), {
      timeout: 5_000,
      interval: 50,
    });
    expect((await attempts(runId))[0]).toMatchObject({ ok: false, status: 404, next_attempt_at: null });
    await vi.waitFor(() => expect(loggedAbout(errors, runId)).toHaveLength(1), {
      timeout: 5_000,
      interval: 50,
    });
    const [line] = loggedAbout(errors, runId);
    expect(line).toMatchObject({ event: 'approval_webhook_not_delivered', attempt: 1, code: 'http_error' });
    expect(line!.message).toContain('answered 404');
    expect(line!.message).toContain(
      `it is not sent again: decide the run through the API (POST /v1/runs/${runId}/approval)`,
    );
  });

  it('waits as long as a receiver asked (429 Retry-After) before the next attempt', async () => {
    const path = `/fail-first/1/${crypto.randomUUID()}`;
    const runId = await startRun(plan, {
      require_plan_approval: true,
      approval: { webhook_url: `${base}${path}?retry_after=3`, timeout_s: 600 },
    });
    await vi.waitFor(async () => expect((await attempts(runId)).some((a) => a.ok)).toBe(true), {
      timeout: 15_000,
      interval: 100,
    });
    const tried = (await events(runId)).filter((e) => e.event_type === 'ApprovalWebhookAttempted');
    expect(tried.map((e) => [e.payload.attempt, e.payload.ok, e.payload.status])).toEqual([
      [1, false, 429],
      [2, true, 200],
    ]);
    // 3 s from when the answer came (the event is written a moment later); the backoff alone: 1 s.
    expect(tried[0]!.payload.next_attempt_at - Date.parse(tried[0]!.timestamp)).toBeGreaterThan(2000);
    expect(Date.parse(tried[1]!.timestamp)).toBeGreaterThanOrEqual(tried[0]!.payload.next_attempt_at);
  }, 20_000);

  it('sends the webhook again after the object is lost mid-delivery, and its link approves the run', async () => {
    const path = `/hang-first/${crypto.randomUUID()}`;
    const runId = await startRun(plan, {
      require_plan_approval: true,
      approval: { webhook_url: `${base}${path}`, timeout_s: 600 },
    });
    await vi.waitFor(async () => expect(await hits(path)).toBe(1), { timeout: 5_000, interval: 50 });
    // What the receiver got before the crash: a receiver may have passed its link on already.
    const lastBody = async () =>
      JSON.parse(
        (await (await fetch(`${base}/last-body?path=${encodeURIComponent(path)}`)).json<Json>())
          .body as string,
      ) as Json;
    const firstLink = (await lastBody()).approval_url as string;
    await abortAllDurableObjects(); // the delivery in flight dies with its instance
    expect(await runDurableObjectAlarm(env.PLAN_RUN.getByName(runId))).toBe(true);
    await vi.waitFor(async () => expect((await attempts(runId)).some((a) => a.ok)).toBe(true), {
      timeout: 5_000,
      interval: 50,
    });
    expect(await hits(path)).toBe(2);
    const ok = (await attempts(runId)).filter((a) => a.ok);
    expect(ok).toHaveLength(1);
    // The same link is sent again (README: every attempt the same single-use link), so the one the
    // receiver got before the crash approves the run, with no API token.
    expect((await lastBody()).approval_url).toBe(firstLink);
    const link = new URL(firstLink);
    const r = await api('POST', `${link.pathname}${link.search}`, { decision: 'approve' });
    expect(r.status).toBe(200);
    const done = await waitForRun(runId);
    expect(done.error ?? null).toBeNull();
    expect(done.status).toBe('completed');
  });
});

describe('a goal-less plan awaiting approval is not stuck when its webhook cannot be sent', () => {
  it('is refused when started with a webhook host the deployment does not allow', async () => {
    const r = await api('POST', '/v1/runs', {
      plan,
      config: { require_plan_approval: true, approval: { webhook_url: 'http://intranet-host/hook' } },
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'invalid_request' });
    const message = String((r.body.error as Json).message);
    expect(message).toContain('config.approval.webhook_url is refused');
    expect(message).toContain('intranet-host');
    expect(message).toContain('HTTP_ALLOWLIST');
  });

  /** Starts a run whose receiver fails the first attempt, then changes the object's variables before the retry. */
  const changedBeforeRetry = async (change: Partial<Env>) => {
    const path = `/fail-first/1/${crypto.randomUUID()}`;
    const runId = await startRun(plan, {
      require_plan_approval: true,
      approval: { webhook_url: `${base}${path}`, timeout_s: 600 },
    });
    await vi.waitFor(async () => expect(await attempts(runId)).toHaveLength(1), {
      timeout: 5_000,
      interval: 20,
    });
    const stub = env.PLAN_RUN.getByName(runId);
    const envOf = (instance: unknown) => (instance as { env: Env }).env;
    const before = await runInDurableObject(stub, (instance) => ({ ...envOf(instance) }));
    await runInDurableObject(stub, (instance) => void Object.assign(envOf(instance), change));
    try {
      await vi.waitFor(async () => expect(await attempts(runId)).toHaveLength(2), {
        timeout: 5_000,
        interval: 50,
      });
    } finally {
      await runInDurableObject(stub, (instance) => {
        for (const key of Object.keys(change) as (keyof Env)[])
          Object.assign(envOf(instance), { [key]: before[key] });
      });
    }
    const [first, refused] = await attempts(runId);
    expect(first).toMatchObject({ ok: false, status: 503 });
    expect(refused).toMatchObject({ ok: false, next_attempt_at: null });
    expect(await hits(path)).toBe(1);
    const r = await api('POST', `/v1/runs/${runId}/approval`, { decision: 'approve' });
    expect(r.status).toBe(200);
    expect((await waitForRun(runId)).status).toBe('completed');
    return String(refused!.error);
  };

  it('records a delivery refused since the run started once, and keeps waiting for a decision', async () => {
    // The operator narrowed HTTP_ALLOWLIST while the run waited.
    const error = await changedBeforeRetry({ HTTP_ALLOWLIST: '' });
    expect(error).toMatch(/^address_refused: webhook_url refused: 127\.0\.0\.1 is a loopback address/);
    expect(error).toContain('HTTP_ALLOWLIST');
  });

  it('says to set WEBHOOK_SECRET when it was unset while the run waited', async () => {
    const error = await changedBeforeRetry({ WEBHOOK_SECRET: undefined });
    expect(error).toMatch(/^invalid_webhook_secret: WEBHOOK_SECRET is not set/);
    expect(error).toContain('wrangler secret put WEBHOOK_SECRET');
  });
});

/**
 * `http.request` through the real boundary: whole runs (`POST /v1/runs`, the run's Durable Object,
 * the queue) whose steps call the Workers runtime's own global `fetch` — nothing injected — against a
 * real HTTP server on 127.0.0.1 (test/workers-http/loopback-server.ts). HTTP_ALLOWLIST is
 * `127.0.0.1` in this project.
 */
import { describe, expect, it } from 'vitest';
import { events, startRun, waitForRun, type Json } from '../workers/helpers';
import { base, hits, port } from './loopback';

/** Runs `steps` with no retries and returns the finished run. */
async function runSteps(steps: unknown[]): Promise<Json> {
  return waitForRun(await startRun({ steps }, { retry_failed_steps: 0 }));
}

const httpStep = (id: string, url: string, extra: Record<string, unknown> = {}) => ({
  id,
  action: 'http.request',
  parameters: { url, ...extra },
});

describe('http.request against a real loopback server, allowlisted', () => {
  it('runs a GET with a query, and a later step uses its output', async () => {
    const run = await runSteps([
      httpStep('fetch', `${base}/echo?name=edge&n=2`),
      {
        id: 'use',
        action: 'demo.echo',
        parameters: {
          name: '{{ steps.fetch.output.body.query.name }}',
          status: '{{ steps.fetch.output.status }}',
        },
        dependencies: ['fetch'],
      },
    ]);
    expect(run.status).toBe('completed');
    expect(run.step_results.fetch).toMatchObject({
      url: `${base}/echo?name=edge&n=2`,
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: { method: 'GET', path: '/echo', query: { name: 'edge', n: '2' } },
    });
    expect(run.step_results.use).toEqual({ name: 'edge', status: 200 });
  });

  it('POSTs a JSON body with the attempt idempotency key, which the server echoes back', async () => {
    const run = await runSteps([
      httpStep('post', `${base}/echo`, { method: 'POST', body: { sku: 'a-1', qty: 3 } }),
    ]);
    expect(run.status).toBe('completed');
    const out = run.step_results.post;
    expect(out.status).toBe(200);
    expect(out.body).toMatchObject({
      method: 'POST',
      content_type: 'application/json',
      body: { sku: 'a-1', qty: 3 },
    });
    expect(out.body.idempotency_key).toMatch(/\S/);
  });

  it('returns a 404 as data and fails a 503 as a retryable http_status', async () => {
    const run = await runSteps([
      httpStep('missing', `${base}/status/404`),
      { ...httpStep('down', `${base}/status/503`), dependencies: ['missing'] },
    ]);
    expect(run.step_results.missing).toMatchObject({ status: 404, body: 'status 404' });
    expect(run.status).toBe('failed');
    expect(run.steps.down.error).toMatchObject({ code: 'http_status', retryable: true });
    expect(run.steps.down.error.message).toContain('503');
  });

  it('fails a response nested thousands of levels deep at once, as output_too_deep, without retrying', async () => {
    const started = Date.now();
    const run = await waitForRun(
      await startRun({ steps: [httpStep('deep', `${base}/deep/50000`, {})] }, { retry_failed_steps: 2 }),
    );
    expect(run.status).toBe('failed');
    expect(run.steps.deep.error).toMatchObject({ code: 'output_too_deep', retryable: false });
    // The body, inside the tool's {url, status, headers, body}.
    expect(run.steps.deep.error.message).toContain('nest 50001 levels deep; the limit is 100');
    expect(run.steps.deep.attempts).toBe(1);
    expect(await hits('/deep/50000')).toBe(1);
    expect(Date.now() - started).toBeLessThan(5_000);
    const fine = await runSteps([httpStep('shallow', `${base}/deep/99`)]);
    expect(fine.status).toBe('completed');
  });

  it('follows a redirect to another allowed path', async () => {
    const run = await runSteps([httpStep('hop', `${base}/redirect?to=/echo?via=redirect`)]);
    expect(run.status).toBe('completed');
    expect(run.step_results.hop).toMatchObject({
      url: `${base}/echo?via=redirect`,
      status: 200,
      body: { query: { via: 'redirect' } },
    });
  });

  it('refuses a redirect to a metadata address after the first hop reached the server', async () => {
    const path = `/redirect/${crypto.randomUUID()}`;
    const to = encodeURIComponent('http://169.254.169.254/latest/meta-data/');
    const run = await runSteps([httpStep('evil', `${base}${path}?to=${to}`)]);
    expect(await hits(path)).toBe(1);
    expect(run.status).toBe('failed');
    expect(run.steps.evil.error).toMatchObject({ code: 'address_refused', retryable: false });
    expect(run.steps.evil.error.message).toContain('169.254.169.254');
  });

  it('refuses `localhost` by name though it reaches the same server: only 127.0.0.1 is allowlisted', async () => {
    const path = `/echo/${crypto.randomUUID()}`;
    const run = await runSteps([httpStep('byname', `http://localhost:${port}${path}`)]);
    expect(run.status).toBe('failed');
    expect(run.steps.byname.error).toMatchObject({ code: 'address_refused', retryable: false });
    expect(run.steps.byname.error.message).toContain('HTTP_ALLOWLIST');
    expect(await hits(path)).toBe(0);
  });
});

describe("http.request's Retry-After: the step's retry waits as long as the server asked", () => {
  it.each(['object', 'queue'])(
    'waits out a 429 Retry-After: 2 longer than the run backoff, then completes (placement %s)',
    async (placement) => {
      const path = `/fail-first/1/${crypto.randomUUID()}`;
      const runId = await startRun(
        { steps: [httpStep('limited', `${base}${path}?retry_after=2`)] },
        { retry_failed_steps: 1, retry_delay: 0.05, execution_mode: 'parallel', placement },
      );
      // While it waits, the run says when the next attempt starts.
      const waiting = await waitForRun(runId, (r) => r.steps.limited.retry_at !== undefined);
      expect(waiting.steps.limited).toMatchObject({ status: 'pending', error: { retry_after_ms: 2000 } });
      const run = await waitForRun(runId, undefined, 20_000);
      expect(run.status).toBe('completed');
      expect(run.steps.limited.retry_at).toBeUndefined();
      expect(await hits(path)).toBe(2);
      const trace = await events(runId);
      const retried = trace.find((e) => e.event_type === 'StepRetried')!;
      expect(retried.payload).toMatchObject({
        delay_ms: 2000,
        error: { code: 'http_status', retryable: true, retry_after_ms: 2000 },
      });
      // The second call went out no sooner than the server allowed.
      const calls = trace.filter((e) => e.event_type === 'ToolInvoked');
      expect(calls).toHaveLength(2);
      expect(Date.parse(calls[1]!.timestamp)).toBeGreaterThanOrEqual(retried.payload.retry_at);
      expect(waiting.steps.limited.retry_at).toBe(new Date(retried.payload.retry_at).toISOString());
      expect(trace.find((e) => e.event_type === 'StepScheduled')?.payload.dispatch).toBe(
        placement === 'queue' ? 'queue' : 'inline',
      );
    },
  );

  it('does not retry a server that asks for longer than an hour, and says so', async () => {
    const run = await waitForRun(
      await startRun(
        { steps: [httpStep('quota', `${base}/status/429?retry_after=86400`)] },
        { retry_failed_steps: 2 },
      ),
    );
    expect(run.status).toBe('failed');
    expect(run.steps.quota.attempts).toBe(1);
    expect(run.steps.quota.error).toMatchObject({ code: 'http_status', retry_after_ms: 86_400_000 });
    expect(run.steps.quota.error.message).toContain(
      "not retried: it asked to be called again in 86400 s (Retry-After), longer than a step's retry waits (3600 s)",
    );
  });
});

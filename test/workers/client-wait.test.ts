/**
 * `client.waitForRun()` through the Worker's entrypoint: one call waits past the API's 50 s per
 * request by asking again (here, a client whose own request limit leaves 2 s a request), carrying
 * the seq it counts new events from, and ends as soon as the run gets where it is waited for.
 */
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { createClient, EdgeplanApiError } from '../../src/client';

/** The client, and the `/wait` requests it made (their query strings). */
function clientSeeingWaits(timeoutMs?: number) {
  const waits: URLSearchParams[] = [];
  const client = createClient({
    baseUrl: 'http://edgeplan.test',
    timeoutMs,
    fetch: (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      if (url.pathname.endsWith('/wait')) waits.push(url.searchParams);
      return exports.default.fetch(new Request(input, init));
    },
  });
  return { client, waits };
}

const approvalPlan = {
  plan: { goal: 'ask first', steps: [{ id: 'a', action: 'demo.echo', parameters: { value: 1 } }] },
  config: { require_plan_approval: true },
};

describe('client.waitForRun', () => {
  it('answers at once for a run already waiting for a person, then follows it to its end after the approval', async () => {
    const { client } = clientSeeingWaits();
    const { run_id } = await client.createRun(approvalPlan);
    const waiting = await client.waitForRun(run_id, { until: 'waiting', timeoutS: 20 });
    expect(waiting).toMatchObject({ timed_out: false, run: { status: 'awaiting_approval' } });

    const ended = client.waitForRun(run_id);
    await client.approve(run_id);
    expect(await ended).toMatchObject({
      timed_out: false,
      run: { status: 'completed', step_results: { a: { value: 1 } } },
    });
  });

  it('asks again when a request’s time is up, counting new events from the first answer’s last seq', async () => {
    // A client limit of 7 s leaves the server 2 s a request: a 5 s wait takes at least three requests.
    const { client, waits } = clientSeeingWaits(7_000);
    const { run_id } = await client.createRun(approvalPlan);
    const still = await client.waitForRun(run_id, { until: 'any_change', timeoutS: 5 });
    expect(still.timed_out).toBe(true);
    expect(still.run.status).toBe('awaiting_approval');
    expect(waits.length).toBeGreaterThanOrEqual(3);
    expect(waits.every((q) => Number(q.get('timeout_s')) <= 2)).toBe(true);
    expect(waits[0]!.get('after')).toBeNull();
    expect(waits.slice(1).every((q) => q.get('after') === String(still.run.last_seq))).toBe(true);
  }, 20_000);

  it('throws the API’s not_found for a run that does not exist', async () => {
    const { client } = clientSeeingWaits();
    const err = await client
      .waitForRun('run_0123456789abcdef0123456789abcdef', { timeoutS: 1 })
      .catch((e) => e);
    expect(err).toBeInstanceOf(EdgeplanApiError);
    expect(err).toMatchObject({ status: 404, code: 'not_found' });
  });
});

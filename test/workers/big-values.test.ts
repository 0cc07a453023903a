import { runInDurableObject } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, startRun, waitForRun, type Json } from './helpers';

const MIB = 1024 * 1024;
/** What a deployed Durable Object's SQLite takes in one row's value. */
const ROW_VALUE_LIMIT = 2_000_000;
const ref = (path: string) => `{{ ${path} }}`;
const echo = (id: string, parameters: Record<string, unknown>, dependencies: string[] = []) => ({
  id,
  action: 'demo.echo',
  parameters,
  dependencies,
});

/** The largest value any column of the run's SQLite holds, in bytes. */
async function largestStoredValue(runId: string): Promise<number> {
  const columns: Record<string, string[]> = {
    meta: ['value'],
    plans: ['body'],
    steps: ['runtime'],
    events: ['body'],
    outputs: ['value'],
    vars: ['value'],
    blobs: ['data'],
    attempts: ['error_code', 'action'],
  };
  return runInDurableObject(env.PLAN_RUN.getByName(runId), (_i, state) => {
    // Tables a run never wrote (state variables here) are never created.
    const present = new Set(
      state.storage.sql
        .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
        .toArray()
        .map((r) => r.name),
    );
    let max = 0;
    for (const [table, cols] of Object.entries(columns)) {
      if (!present.has(table)) continue;
      for (const col of cols) {
        const row = state.storage.sql
          .exec<{ n: number | null }>(`SELECT max(octet_length(${col})) AS n FROM ${table}`)
          .one();
        max = Math.max(max, row.n ?? 0);
      }
    }
    return max;
  });
}

/** Every page of the run's events, following `next_after` while `has_more`. */
async function allPages(runId: string): Promise<{ events: Json[]; bytes: number }[]> {
  const pages: { events: Json[]; bytes: number }[] = [];
  for (let after = 0; ;) {
    const res = await exports.default.fetch(
      new Request(`http://edgeplan.test/v1/runs/${runId}/events?after=${after}&limit=1000`),
    );
    expect(res.status).toBe(200);
    const text = await res.text();
    const body = JSON.parse(text) as Json;
    pages.push({ events: body.events as Json[], bytes: text.length });
    if (!body.has_more) return pages;
    after = body.next_after as number;
  }
}

describe('big step outputs', () => {
  it('fails an output over max_output_bytes with output_too_large, keeps every row storable, and serves the run in bounded pieces', async () => {
    const one = 'x'.repeat(1_000_000);
    const runId = await startRun(
      {
        steps: [
          echo('a', { s: one }),
          echo('b', { p: ref('steps.a.output.s'), q: ref('steps.a.output.s'), r: ref('steps.a.output.s') }, [
            'a',
          ]),
          echo('c', { p: ref('steps.b.output'), q: ref('steps.b.output'), r: ref('steps.b.output') }, ['b']),
          ...['d1', 'd2', 'd3'].map((id) =>
            echo(id, { p: ref('steps.a.output.s'), q: ref('steps.a.output.s') }, ['a']),
          ),
        ],
      },
      // Retries allowed: the call succeeded, so the output over the limit is not a reason to call again.
      { max_output_bytes: 4 * MIB, retry_failed_steps: 2, retry_delay: 0, continue_on_failure: true },
    );
    const run = await waitForRun(runId, undefined, 60_000);

    // c's 9 MB output is refused as a failed attempt: once, never a timeout, a retry or a re-run.
    expect(run.steps.c).toMatchObject({ status: 'failed', attempts: 1, error: { code: 'output_too_large' } });
    expect(run.steps.c.error.message).toMatch(
      /Step "c" returned \d+ bytes of output.*limit of 4194304 bytes/,
    );
    expect(run.status).toBe('failed');
    for (const id of ['a', 'b', 'd1', 'd2', 'd3']) expect(run.step_statuses[id]).toBe('completed');

    // No row holds more than a deployed object's SQLite takes, the 6 MB final output included.
    expect(await largestStoredValue(runId)).toBeLessThanOrEqual(ROW_VALUE_LIMIT);

    // The snapshot fits in one response: values past 8 MiB are markers pointing at /values.
    const snapText = JSON.stringify(run);
    expect(snapText.length).toBeLessThan(9 * MIB);
    expect(Object.keys(run.final_output as Json).sort()).toEqual(['d1', 'd2', 'd3']);
    const elided = Object.entries(run.step_results as Record<string, Json>).filter(([, v]) => v?.$elided);
    expect(elided.length).toBeGreaterThan(0);
    for (const [id, v] of elided) {
      expect(v.$elided).toMatchObject({ ref: `steps.${id}.output`, bytes: expect.any(Number) });
      const whole = await api('GET', v.$elided.href as string);
      expect(whole.status).toBe(200);
      expect(JSON.stringify(whole.body.value).length).toBe(v.$elided.bytes);
    }
    const status = await api('GET', `/v1/runs/${runId}/status?include_details=true`);
    expect(status.status).toBe(200);
    expect(JSON.stringify(status.body).length).toBeLessThan(9 * MIB);
    const results = (status.body.subtasks as Json[]).map((t) => t.result as Json | null);
    expect(results.some((r) => r?.$elided)).toBe(true);
    const replayed = await api('GET', `/v1/runs/${runId}/state`);
    expect(replayed.status).toBe(200);
    expect(replayed.body.step_statuses).toEqual(run.step_statuses);

    // The log comes in pages of at most ~8 MiB (a larger event alone), gap-free end to end.
    const pages = await allPages(runId);
    expect(pages.length).toBeGreaterThan(1);
    const seqs = pages.flatMap((p) => p.events.map((e) => e.seq as number));
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    for (const p of pages) expect(p.events.length === 1 || p.bytes <= 8 * MIB + 64 * 1024).toBe(true);
    const types = pages.flatMap((p) => p.events.map((e) => e.event_type as string));
    expect(types.at(-1)).toBe('RunTerminated');
  }, 90_000);

  it('refuses an output over the limit in the queue consumer too, and the fallback takes over', async () => {
    const third = 'y'.repeat(400_000);
    const fourTimes = { w: ref('steps.a.output.s'), x: ref('steps.a.output.s'), y: ref('steps.a.output.s') };
    const runId = await startRun(
      {
        steps: [
          echo('a', { s: third }),
          {
            ...echo('b', { ...fourTimes, z: ref('steps.a.output.s') }, ['a']),
            fallback_action: { action: 'demo.echo', parameters: { small: true } },
          },
        ],
      },
      { execution_mode: 'parallel', retry_failed_steps: 0 },
    );
    const run = await waitForRun(runId, undefined, 30_000);
    expect(run.status).toBe('completed');
    expect(run.step_results.b).toEqual({ small: true });
    const attempts = await runInDurableObject(env.PLAN_RUN.getByName(runId), (instance) =>
      (instance as unknown as { attempts(id: string): Json[] }).attempts('b'),
    );
    expect(attempts.map((a) => [a.status, a.error_code])).toEqual([
      ['failed', 'output_too_large'],
      ['succeeded', null],
    ]);
  }, 60_000);

  it('runs many steps with large parameters and outputs in parallel, each once: no call outgrows its limit', async () => {
    const ids = Array.from({ length: 12 }, (_, i) => `b${i}`);
    const runId = await startRun(
      {
        steps: [
          echo('a', { s: 'w'.repeat(1_000_000) }),
          ...ids.map((id) => echo(id, { p: ref('steps.a.output.s') }, ['a'])),
        ],
      },
      { execution_mode: 'parallel', max_parallel: 12, retry_failed_steps: 0 },
    );
    const run = await waitForRun(runId, undefined, 60_000);
    expect(run.status).toBe('completed');
    for (const id of ids) expect(run.steps[id]).toMatchObject({ status: 'completed', attempts: 1 });
    const b0 = await api('GET', `/v1/runs/${runId}/values?ref=steps.b0.output.p`);
    expect(b0.body.value).toBe('w'.repeat(1_000_000));
  }, 60_000);

  it('sends events too large for a WebSocket message as markers pointing at the events page', async () => {
    const runId = await startRun(
      { steps: [echo('a', { s: 'z'.repeat(1_100_000) })] },
      { max_output_bytes: 2 * MIB },
    );
    const run = await waitForRun(runId, undefined, 30_000);
    expect(run.status).toBe('completed');
    const res = await exports.default.fetch(
      new Request(`http://edgeplan.test/v1/runs/${runId}/ws?after=0`, { headers: { Upgrade: 'websocket' } }),
    );
    const ws = res.webSocket!;
    const messages: string[] = [];
    ws.accept();
    ws.addEventListener('message', (m) => messages.push(String(m.data)));
    const last = run.last_seq as number;
    for (let i = 0; i < 500 && messages.length < last; i++) await new Promise((r) => setTimeout(r, 10));
    ws.close(1000);
    expect(messages).toHaveLength(last);
    for (const m of messages) expect(m.length).toBeLessThan(MIB);
    const big = messages.map((m) => JSON.parse(m) as Json).filter((e) => e.payload.$elided);
    // The plan, the parameters, the output and the final output each carry the 1.1 MB text.
    expect(big.map((e) => e.event_type).sort()).toEqual([
      'PlanAuthored',
      'RunTerminated',
      'ToolInvoked',
      'ToolReturned',
    ]);
    const returned = big.find((e) => e.event_type === 'ToolReturned')!;
    const page = await api('GET', returned.payload.$elided.href as string);
    expect(page.body.events[0].payload.output).toEqual({ s: 'z'.repeat(1_100_000) });
  }, 60_000);
});

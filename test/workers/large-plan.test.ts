import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, startRun } from './helpers';

/** What a deployed Durable Object's SQLite or D1 takes in one value. */
const VALUE_LIMIT = 2_000_000;
const N = 100_000;

describe('a 100,000-step plan', () => {
  it('is created, stored within per-value limits, served, and its first steps run', async () => {
    const steps = Array.from({ length: N }, (_, i) => ({ id: `s${i}`, action: 'demo.echo' }));
    const runId = await startRun({ steps }, { max_steps: N, execution_mode: 'parallel', max_parallel: 5 });
    // plan.status (counts only): a full snapshot of 100,000 steps is too much to poll.
    let status = (await api('GET', `/v1/runs/${runId}/status`)).body;
    for (let i = 0; i < 3000 && status.status.completed < 5; i++) {
      await new Promise((r) => setTimeout(r, 10));
      status = (await api('GET', `/v1/runs/${runId}/status`)).body;
    }
    expect(status).toMatchObject({ run_status: 'running', status: { total: N } });
    expect(status.status.completed).toBeGreaterThanOrEqual(5);
    expect((await api('POST', `/v1/runs/${runId}/cancel`, {})).status).toBe(200);

    const largest = await runInDurableObject(env.PLAN_RUN.getByName(runId), (_i, state) => {
      const max = (table: string, col: string) =>
        state.storage.sql
          .exec<{ n: number | null }>(`SELECT max(octet_length(${col})) AS n FROM ${table}`)
          .one().n ?? 0;
      return Math.max(
        max('events', 'body'),
        max('plans', 'body'),
        max('blobs', 'data'),
        max('meta', 'value'),
      );
    });
    expect(largest).toBeLessThanOrEqual(VALUE_LIMIT);

    // Too large for a D1 value: D1 lists the version, the run's object serves it.
    const row = await env.DB.prepare('SELECT length(plan_json) AS n FROM plan_versions WHERE run_id = ?')
      .bind(runId)
      .first<{ n: number }>();
    expect(row?.n).toBe(0);
    // The snapshot answers; the plan (~10 MB) is a marker pointing at its version.
    const snap = await api('GET', `/v1/runs/${runId}`);
    expect(snap.status).toBe(200);
    expect(snap.body.counts.total).toBe(N);
    expect(snap.body.plan.$elided).toMatchObject({ ref: 'plan', href: `/v1/runs/${runId}/plans/1` });
    const plan = await api('GET', snap.body.plan.$elided.href as string);
    expect(plan.status).toBe(200);
    expect(plan.body.steps).toHaveLength(N);
    expect(plan.body.steps[N - 1].id).toBe(`s${N - 1}`);
  }, 90_000);
});

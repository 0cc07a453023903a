/**
 * A child run knows its parent (migration 0007, src/durable/run-parent.ts): its D1 index row, its
 * snapshot, its status and its list row name the run and step that started it; the run list can be
 * narrowed to a run's children or to top-level runs; a child row written before the migration (no
 * parent) gets it when the child's object next loads.
 */
import { abortAllDurableObjects } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import { api, startRun, waitForRun, type Json } from './helpers';
import { echo } from '../fixtures/echo-steps';

const parentColumns = (runId: string) =>
  env.DB.prepare('SELECT parent_run_id, parent_step_id FROM runs WHERE run_id = ?').bind(runId).first();

/** A completed parent whose step `research` ran a sub-plan as a child run; both ids. */
async function parentWithChild(): Promise<{ parent: string; child: string }> {
  const parent = await startRun({
    goal: 'a parent',
    steps: [echo('prepare'), { ...echo('research', ['prepare']), subplan: { steps: [echo('x')] } }],
  });
  const run = await waitForRun(parent);
  expect(run.status).toBe('completed');
  const child = (run.step_results.research as { run_id: string }).run_id;
  expect(child).toMatch(/^run_[0-9a-f]{32}$/);
  return { parent, child };
}

const listed = async (query: string) => {
  const page = await api('GET', `/v1/runs?limit=200${query}`);
  expect(page.status).toBe(200);
  return (page.body.runs as Json[]).map((r) => r.run_id as string);
};

describe('a child run’s parent', () => {
  it('is in the sub-plan child’s index row, snapshot, status and list row; a top-level run has none', async () => {
    const { parent, child } = await parentWithChild();
    await vi.waitFor(async () =>
      expect(await parentColumns(child)).toEqual({ parent_run_id: parent, parent_step_id: 'research' }),
    );
    await vi.waitFor(async () =>
      expect(await parentColumns(parent)).toEqual({ parent_run_id: null, parent_step_id: null }),
    );

    const [childRun, childStatus, childState] = await Promise.all([
      api('GET', `/v1/runs/${child}`),
      api('GET', `/v1/runs/${child}/status`),
      api('GET', `/v1/runs/${child}/state`),
    ]);
    for (const r of [childRun, childStatus, childState])
      expect(r.body).toMatchObject({ parent_run_id: parent, parent_step_id: 'research' });
    const parentRun = await api('GET', `/v1/runs/${parent}`);
    expect(parentRun.body).toMatchObject({ parent_run_id: null, parent_step_id: null });

    const rows = (await api('GET', '/v1/runs?limit=200')).body.runs as Json[];
    expect(rows.find((r) => r.run_id === child)).toMatchObject({
      parent_run_id: parent,
      parent_step_id: 'research',
    });
    expect(rows.find((r) => r.run_id === parent)).toMatchObject({
      parent_run_id: null,
      parent_step_id: null,
    });
  });

  it('narrows the run list to a run’s children, or to top-level runs; the default lists both', async () => {
    const { parent, child } = await parentWithChild();
    // A second top-level run, so the top-level list has a second page.
    const other = await startRun({ steps: [echo('a')] });
    expect((await waitForRun(other)).status).toBe('completed');
    await vi.waitFor(async () => expect((await parentColumns(child))?.parent_run_id).toBe(parent));
    for (const id of [parent, other])
      await vi.waitFor(async () => expect(await parentColumns(id)).not.toBeNull());

    expect(await listed(`&parent_run_id=${parent}`)).toEqual([child]);
    expect(await listed(`&parent_run_id=${child}`)).toEqual([]);
    const top = await listed('&top_level=true');
    expect([top.includes(parent), top.includes(child)]).toEqual([true, false]);
    const all = await listed('');
    expect([all.includes(parent), all.includes(child)]).toEqual([true, true]);
    // With the status filter, and paged: the cursor carries on inside the filter.
    expect(await listed(`&parent_run_id=${parent}&status=completed`)).toEqual([child]);
    const first = await api('GET', `/v1/runs?limit=1&top_level=true`);
    const next = await api('GET', `/v1/runs?limit=1&top_level=true&cursor=${first.body.next_cursor}`);
    expect(next.status).toBe(200);
    expect((next.body.runs as Json[]).every((r) => r.parent_run_id === null)).toBe(true);
  });

  it('refuses filters that contradict or do not parse with a 400 saying which', async () => {
    const both = await api('GET', '/v1/runs?parent_run_id=run_x&top_level=true');
    expect(both.status).toBe(400);
    expect(both.body.error.code).toBe('invalid_request');
    expect(both.body.error.message).toMatch(/parent_run_id and top_level=true exclude each other/);
    const flag = await api('GET', '/v1/runs?top_level=yes');
    expect(flag.status).toBe(400);
    expect(flag.body.error.message).toMatch(/top_level/);
    const empty = await api('GET', '/v1/runs?parent_run_id=');
    expect(empty.status).toBe(400);
    expect(empty.body.error.message).toMatch(/parent_run_id/);
  });

  it('is written into a child row from before migration 0007 when the child’s object next loads', async () => {
    const { parent, child } = await parentWithChild();
    await vi.waitFor(async () => expect((await parentColumns(child))?.parent_run_id).toBe(parent));
    // As an older release left it: the row without the columns' values.
    await env.DB.prepare('UPDATE runs SET parent_run_id = NULL, parent_step_id = NULL WHERE run_id = ?')
      .bind(child)
      .run();
    expect(await listed(`&parent_run_id=${parent}`)).toEqual([]);
    await abortAllDurableObjects();
    // Any read of the run loads its object, which rewrites a row that differs from the run.
    expect((await api('GET', `/v1/runs/${child}/status`)).body.parent_run_id).toBe(parent);
    await vi.waitFor(async () =>
      expect(await parentColumns(child)).toEqual({ parent_run_id: parent, parent_step_id: 'research' }),
    );
    expect(await listed(`&parent_run_id=${parent}`)).toEqual([child]);
  });
});

import { env } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import { api, events, startRun, waitForRun } from './helpers';

const echo = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  action: 'demo.echo',
  parameters: { id },
  ...extra,
});

describe('POST /v1/runs with a plan', () => {
  it('runs a sequential plan to completion and reports results, counts and the final output', async () => {
    const runId = await startRun({
      goal: 'chain',
      steps: [
        echo('a'),
        {
          id: 'b',
          action: 'demo.echo',
          parameters: { from_a: '{{ steps.a.output.id }}' },
          dependencies: ['a'],
        },
      ],
    });
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.step_results).toEqual({ a: { id: 'a' }, b: { from_a: 'a' } });
    expect(run.counts).toMatchObject({ total: 2, completed: 2, failed: 0 });
    expect(run.final_output).toEqual({ from_a: 'a' });
    expect(run.progress).toBe(1);
  });

  it('fans parallel steps out through the queue', async () => {
    const steps = ['a', 'b', 'c', 'd'].map((id) => ({
      id,
      action: 'demo.sleep',
      parameters: { ms: 50, value: id },
    }));
    const runId = await startRun(
      {
        steps: [
          ...steps,
          {
            id: 'join',
            action: 'demo.echo',
            parameters: { all: ['{{ steps.a.output }}', '{{ steps.d.output }}'] },
            dependencies: ['a', 'b', 'c', 'd'],
          },
        ],
      },
      { execution_mode: 'parallel', max_parallel: 4, placement: 'queue' },
    );
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.step_results.join).toEqual({ all: ['a', 'd'] });
    const scheduled = (await events(runId)).filter((e) => e.event_type === 'StepScheduled');
    expect(scheduled.map((e) => e.payload.dispatch)).toEqual(['queue', 'queue', 'queue', 'queue', 'queue']);
  });

  it('carries out steps of tools placed in the object there, in parallel, and the rest on the queue', async () => {
    const runId = await startRun(
      {
        steps: [
          ...['a', 'b', 'c'].map((id) => ({ id, action: 'demo.sleep', parameters: { ms: 200, value: id } })),
          // demo.flaky keeps the default placement: the queue.
          { id: 'q', action: 'demo.flaky', parameters: { fail_times: 0 } },
          {
            id: 'join',
            action: 'demo.echo',
            parameters: { all: ['{{ steps.a.output }}', '{{ steps.c.output }}', '{{ steps.q.output }}'] },
            dependencies: ['a', 'b', 'c', 'q'],
          },
        ],
      },
      { execution_mode: 'parallel', max_parallel: 4 },
    );
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.step_results.join).toEqual({ all: ['a', 'c', { attempts: 1 }] });
    const log = await events(runId);
    const dispatch = Object.fromEntries(
      log.filter((e) => e.event_type === 'StepScheduled').map((e) => [e.payload.step_id, e.payload.dispatch]),
    );
    expect(dispatch).toEqual({ a: 'inline', b: 'inline', c: 'inline', q: 'queue', join: 'inline' });
    // The three sleeps ran at once: all three had begun before the first returned.
    const firstReturn = log.findIndex((e) => e.event_type === 'ToolReturned');
    const invokedBefore = log
      .slice(0, firstReturn)
      .filter((e) => e.event_type === 'ToolInvoked' && ['a', 'b', 'c'].includes(e.payload.step_id));
    expect(invokedBefore).toHaveLength(3);
  });

  it('sends every step through the queue with placement "queue", and none with placement "object"', async () => {
    const plan = {
      steps: [
        { id: 'a', action: 'demo.sleep', parameters: { ms: 1 } },
        { id: 'b', action: 'demo.flaky', parameters: { fail_times: 0 } },
      ],
    };
    const modes = async (placement: string) => {
      const runId = await startRun(plan, { execution_mode: 'parallel', max_parallel: 2, placement });
      expect((await waitForRun(runId)).status).toBe('completed');
      return (await events(runId))
        .filter((e) => e.event_type === 'StepScheduled')
        .map((e) => e.payload.dispatch)
        .sort();
    };
    expect(await modes('queue')).toEqual(['queue', 'queue']);
    expect(await modes('object')).toEqual(['inline', 'inline']);
  });

  it('refuses an invalid plan with 422 and every finding', async () => {
    const r = await api('POST', '/v1/runs', {
      plan: {
        steps: [
          echo('a', { dependencies: ['b'] }),
          echo('b', { dependencies: ['a'] }),
          { id: 'c', action: 'nope.tool' },
        ],
      },
    });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('invalid_plan');
    const codes = (r.body.error.details.errors as { code: string }[]).map((e) => e.code).sort();
    expect(codes).toEqual(['cycle', 'unknown_tool']);
  });

  it('answers a goal with no planner with a clear error', async () => {
    const r = await api('POST', '/v1/runs', { goal: 'write a poem' });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('planning_unavailable');
  });

  it('returns a dry run without executing in lazy mode', async () => {
    const r = await api('POST', '/v1/runs', { plan: { steps: [echo('a')] }, config: { mode: 'lazy' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ mode: 'lazy', valid: true });
    expect(r.body.estimates.step_count).toBe(1);
  });

  it('404s for an unknown run', async () => {
    expect((await api('GET', '/v1/runs/run_doesnotexist')).status).toBe(404);
    expect((await api('GET', '/v1/runs/not-a-run-id/status')).status).toBe(404);
  });
});

describe('GET /v1/runs with a row this release cannot read', () => {
  it('lists the other runs and pages past it', async () => {
    const runId = await startRun({ goal: 'listed', steps: [echo('a')] });
    await waitForRun(runId);
    // A row another release wrote, with a status this one does not know, newest of all.
    await env.DB.prepare(
      `INSERT INTO runs (run_id, status, goal, plan_id, plan_version, step_count, created_at, updated_at)
       VALUES ('run_from_another_release', 'paused', 'g', null, null, 0, '2999-01-01T00:00:00.000Z', '2999-01-01T00:00:00.000Z')`,
    ).run();
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const first = await api('GET', '/v1/runs?limit=1');
    expect(first.status).toBe(200);
    expect(first.body.runs).toEqual([]);
    expect(logged.mock.calls.flat().join(' ')).toContain('run_from_another_release');
    logged.mockRestore();
    const next = await api('GET', `/v1/runs?limit=50&cursor=${first.body.next_cursor as string}`);
    expect(next.status).toBe(200);
    expect(next.body.runs.map((r: { run_id: string }) => r.run_id)).toContain(runId);
  });
});

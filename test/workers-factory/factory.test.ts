import { abortAllDurableObjects, createScheduledController, runInDurableObject } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import { createEdgeplan } from '../../src/worker-factory';
import { api, startRun, waitForRun } from '../workers/helpers';
import worker, { greet } from './worker';

/** The Worker's own scheduled handler, run by the runtime (its type names only fetch). */
const scheduled = (cron: string) =>
  (exports.default as unknown as { scheduled(o: { cron: string }): Promise<unknown> }).scheduled({ cron });

const plan = (ids: string[]) => ({
  goal: 'greet',
  steps: ids.map((id) => ({ id, action: 'team.greet', parameters: { name: id } })),
});

describe('a Worker built with createEdgeplan and a tool of its own', () => {
  it('lists the tool in /v1/tools beside the built-ins and the demo pack', async () => {
    const r = await api('GET', '/v1/tools');
    const names = (r.body.tools as { name: string }[]).map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['team.greet', 'http.request', 'agent.dispatch', 'demo.echo']),
    );
  });

  it('validates plans against it', async () => {
    const bad = await api('POST', '/v1/plans/validate', {
      plan: { goal: 'g', steps: [{ id: 'a', action: 'team.greet', parameters: { name: 3 } }] },
    });
    expect(bad.body.valid).toBe(false);
    expect(bad.body.errors.map((e: { code: string }) => e.code)).toContain('invalid_parameters');
  });

  it('runs it inline in the run object, with the secret from the bindings', async () => {
    const runId = await startRun(plan(['ada']), { execution_mode: 'sequential' });
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.step_results.ada).toEqual({ greeting: 'Hello, ada!', signed: 'from-env' });
  });

  it('runs it through the steps queue consumer', async () => {
    const runId = await startRun(plan(['ada', 'bob', 'cy']), { execution_mode: 'parallel', max_parallel: 3 });
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    expect(run.step_results.cy.greeting).toBe('Hello, cy!');
  });

  it('fails a step at once when its tool throws a ToolError that is not retryable, with the tool’s code', async () => {
    const runId = await startRun(
      { goal: 'lookup', steps: [{ id: 'find', action: 'team.lookup', parameters: { sku: 'NOPE-9' } }] },
      { execution_mode: 'sequential', retry_failed_steps: 3, retry_delay: 0 },
    );
    const run = await waitForRun(runId);
    expect(run.status).toBe('failed');
    const events = (await api('GET', `/v1/runs/${runId}/events`)).body.events as {
      event_type: string;
      payload: { error?: { code: string; message: string; retryable: boolean } };
    }[];
    expect(events.filter((e) => e.event_type === 'ToolInvoked')).toHaveLength(1);
    expect(events.find((e) => e.event_type === 'StepFailed')?.payload.error).toMatchObject({
      code: 'item_not_found',
      message: 'no item NOPE-9',
      retryable: false,
    });
  });

  it('sweeps for RUN_RETENTION_DAYS from its Cron Trigger: an ended run is woken and arms its alarm', async () => {
    const runId = await startRun(plan(['ada']), { execution_mode: 'sequential' });
    const ended = Date.parse((await waitForRun(runId)).completed_at as string);
    // A stub each time: one made before abortAllDurableObjects() is broken after it.
    const stub = () => env.PLAN_RUN.getByName(runId);
    const alarm = () => runInDurableObject(stub(), (_i, state) => state.storage.getAlarm());
    await vi.waitFor(async () => expect(await alarm()).toBeNull());
    // Unset (the test's bindings): the cron does nothing.
    await scheduled('*/5 * * * *');
    expect(await alarm()).toBeNull();
    // Set: the run's object keeps it a day (its alarm then is its end + a day, and stays put); the
    // sweep is run with a retention the run is already past, so it is woken now.
    await abortAllDurableObjects();
    await runInDurableObject(stub(), (instance) => {
      const own = instance as unknown as { env: Env };
      own.env = { ...own.env, RUN_RETENTION_DAYS: '1' };
    });
    await worker.scheduled(createScheduledController(), { ...env, RUN_RETENTION_DAYS: '0.00000001' });
    // (Nothing else reads the run after the abort: only the sweep can have woken it.)
    await vi.waitFor(async () => expect(await alarm()).toBe(ended + 86_400_000));
  });

  it('refuses, at startup, a tool named like a built-in', () => {
    expect(() => createEdgeplan({ tools: [{ ...greet, name: 'llm.call' }] })).toThrow(
      'edgeplan: tool "llm.call" is built in',
    );
  });
});

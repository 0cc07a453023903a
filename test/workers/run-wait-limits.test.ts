/**
 * A wait (`GET /v1/runs/:id/wait`, `wait_for_run`) stays within the calls one request may make
 * (Workers Free: 50 subrequests): each time the run's events ring it, it asks the run for its
 * progress, and a run busy for the whole wait rings it far more often. Counted at the run's binding,
 * since workerd under Vitest enforces no limit.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { runObject } from '../../src/durable/run-object';
import { waitForRun as waitFor } from '../../src/http/run-wait';
import { countedNamespace } from './counted-bindings';
import { startRun, waitForRun } from './helpers';

describe('a wait on a busy run', () => {
  it('ends early, timed out, once it has used the calls it may make; waiting again goes on', async () => {
    const steps = Array.from({ length: 40 }, (_, i) => ({
      id: `s${i}`,
      action: 'demo.sleep',
      parameters: { ms: 25, value: i },
      dependencies: i === 0 ? [] : [`s${i - 1}`],
    }));
    const id = await startRun({ steps }, { max_steps: 100 });
    const calls = { n: 0 };
    const stub = runObject(countedNamespace(env.PLAN_RUN, calls) as Env['PLAN_RUN'], id);
    const maxCalls = 10;
    const done = await waitFor(stub, { until: 'terminal', timeoutMs: 15_000, maxCalls });
    expect(done && 'run' in done).toBe(true);
    expect(calls.n).toBeLessThanOrEqual(maxCalls);
    // Early, or the run had ended: either way the answer says which.
    const run = (done as { run: { status: string }; timed_out: boolean }).run;
    expect((done as { timed_out: boolean }).timed_out).toBe(run.status !== 'completed');
    expect((await waitForRun(id)).status).toBe('completed');
  });
});

/**
 * A run object's decision that throws (decision-fault.ts) — here a team tool whose definition throws
 * when the object reads where its steps run — never leaves the object unusable: a create is undone and
 * answered `500 decision_failed` naming the error (it once answered `null.state`), and a step result
 * whose decision throws fails the run with that error instead of meeting it on every wake.
 */
import { describe, expect, it } from 'vitest';
import { api, startRun, waitForRun } from '../workers/helpers';

/** Parallel: the object reads a tool's placement only then (sequential runs every step in it). */
const parallel = { execution_mode: 'parallel' };

const step = (id: string, action: string, dependencies: string[] = []) => ({
  id,
  action,
  parameters: { name: id },
  dependencies,
});

describe('a decision that throws', () => {
  it('at create: answered 500 decision_failed naming the error, nothing of the run kept, the next run works', async () => {
    const plan = { goal: 'g', steps: [step('h', 'team.haunted')] };
    const r = await api('POST', '/v1/runs', { plan, config: parallel });
    expect(r.status).toBe(500);
    expect(r.body.error.code).toBe('decision_failed');
    expect(r.body.error.message).toMatch(
      /^The run's decision on create threw RangeError: Maximum call stack size exceeded; nothing of run run_\w+ was kept/,
    );
    const runId = /nothing of run (run_\w+)/.exec(r.body.error.message as string)?.[1];
    expect((await api('GET', `/v1/runs/${runId}`)).status).toBe(404);
    expect((await api('GET', `/v1/runs/${runId}/events`)).status).toBe(404);
    const next = await startRun({ goal: 'g', steps: [step('ada', 'team.greet')] }, parallel);
    expect((await waitForRun(next)).status).toBe('completed');
  });

  it('on a step result: the run fails with decision_failed naming the error, its events readable', async () => {
    const runId = await startRun(
      {
        goal: 'g',
        steps: [step('a', 'team.greet'), step('h', 'team.haunted', ['a'])],
      },
      parallel,
    );
    const run = await waitForRun(runId);
    expect(run.status).toBe('failed');
    expect(run.error).toMatchObject({ code: 'decision_failed', retryable: false });
    expect(run.error.message).toMatch(
      /^The run's decision on result threw RangeError: Maximum call stack size exceeded; the run was failed/,
    );
    const events = await api('GET', `/v1/runs/${runId}/events`);
    expect(events.status).toBe(200);
    expect((events.body.events as { event_type: string }[]).at(-1)?.event_type).toBe('RunTerminated');
  });
});

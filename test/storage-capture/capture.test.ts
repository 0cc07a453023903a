/**
 * Captures the storage fixtures of this release's format (`npm run capture:storage`, which sets
 * EDGEPLAN_CAPTURE_STORAGE): real runs, driven through the Worker to the states a deploy finds them in,
 * then dumped (test/workers/storage-fixture.ts) and written under test/fixtures/storage/v<N>/ by the
 * sink (./sink.ts). Not part of `npm test`: a format's fixtures are frozen once committed — a new
 * format gets a directory of its own (docs/upgrading.md).
 */
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, inject, it } from 'vitest';
import { childRunId } from '../../src/engine/child-run';
import type { StepMessage } from '../../src/durable/messages';
import { STORAGE_FORMAT } from '../../src/durable/storage-format';
import worker from '../../src/worker';
import { api, startRun, waitForRun, type Json } from '../workers/helpers';
import { dumpObject, type StorageFixture } from '../workers/storage-fixture';

const DAY_S = 24 * 3600;

async function save(name: string, f: Omit<StorageFixture, 'format' | 'captured_at'>, at: number) {
  const format = f.objects[0]!.rows.meta!.find((r) => r.key === 'storage_format')?.value ?? null;
  const fixture: StorageFixture = { format: format === null ? null : Number(format), captured_at: at, ...f };
  expect(fixture.format).toBe(STORAGE_FORMAT);
  const res = await fetch(`${inject('storageSink')}/${name}`, {
    method: 'PUT',
    body: JSON.stringify(fixture),
  });
  expect(res.status).toBe(204);
}

const eventsOf = async (runId: string): Promise<Json[]> =>
  (await api('GET', `/v1/runs/${runId}/events?limit=1000`)).body.events as Json[];

describe(`storage format ${STORAGE_FORMAT} fixtures`, () => {
  it('awaiting-approval: a plan waiting for its approver (a week to decide)', async () => {
    const runId = await startRun(
      {
        steps: [
          { id: 'a', action: 'demo.counter', parameters: { key: 'fx-approval-a' } },
          {
            id: 'b',
            action: 'demo.echo',
            parameters: { n: '{{ steps.a.output.value }}' },
            dependencies: ['a'],
          },
        ],
      },
      { require_plan_approval: true, approval: { timeout_s: 7 * DAY_S } },
      { topic: 'fixtures' },
    );
    await waitForRun(runId, (r) => r.status === 'awaiting_approval');
    const at = Date.now();
    await save(
      'awaiting-approval',
      {
        about: 'A run awaiting approval of its plan (approval.timeout_s: 7 days); a → b, a counts.',
        objects: [await dumpObject(runId)],
        notes: { counters: ['fx-approval-a'] },
      },
      at,
    );
  });

  it('queue-attempt: two steps sent to the steps queue, not yet delivered', async () => {
    // The Worker's queue binding records what the run sends, and delivers nothing.
    const queued: MessageSendRequest<StepMessage>[] = [];
    const recorder = {
      send: (body: StepMessage) => Promise.resolve(void queued.push({ body })),
      sendBatch: (msgs: Iterable<MessageSendRequest<StepMessage>>) =>
        Promise.resolve(void queued.push(...msgs)),
    };
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request('http://edgeplan.test/v1/runs', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          plan: {
            steps: [
              { id: 'q1', action: 'demo.counter', parameters: { key: 'fx-queue-q1' } },
              { id: 'q2', action: 'demo.counter', parameters: { key: 'fx-queue-q2' } },
              {
                id: 'after',
                action: 'demo.echo',
                parameters: { q1: '{{ steps.q1.output.value }}', q2: '{{ steps.q2.output.value }}' },
                dependencies: ['q1', 'q2'],
              },
            ],
          },
          config: { execution_mode: 'parallel', placement: 'queue' },
        }),
      }),
      { ...env, STEPS: recorder } as unknown as Env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(201);
    const runId = (await res.json<{ run_id: string }>()).run_id;
    expect(queued.map((m) => m.body.step_id).sort()).toEqual(['q1', 'q2']);
    const at = Date.now();
    await save(
      'queue-attempt',
      {
        about: 'A run whose two first steps were sent to the steps queue and not yet taken by a consumer.',
        objects: [await dumpObject(runId)],
        queued,
        notes: { counters: ['fx-queue-q1', 'fx-queue-q2'] },
      },
      at,
    );
  });

  it('mid-retry: a failed attempt waiting ten minutes for its retry', async () => {
    const runId = await startRun(
      {
        steps: [
          { id: 'f', action: 'demo.flaky', parameters: { key: 'fx-retry-f', fail_times: 1 } },
          { id: 'after', action: 'demo.counter', parameters: { key: 'fx-retry-after' }, dependencies: ['f'] },
        ],
      },
      { retry_failed_steps: 2, retry_delay: 600 },
    );
    for (;;) {
      if ((await eventsOf(runId)).some((e) => e.event_type === 'StepRetried')) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    const at = Date.now();
    await save(
      'mid-retry',
      {
        about:
          'A run whose step f (demo.flaky, fail_times 1) failed its first attempt and waits 600 s for its retry.',
        objects: [await dumpObject(runId)],
        notes: { counters: ['fx-retry-after'], flaky: { 'fx-retry-f': 1 } },
      },
      at,
    );
  });

  it('child-run: a parent step waiting on its child run, which waits for an answer', async () => {
    const runId = await startRun({
      steps: [
        {
          id: 'child',
          action: 'plan.execute',
          parameters: {
            plan: {
              steps: [
                { id: 'ask', action: 'human.input', parameters: { prompt: 'Go on?' } },
                {
                  id: 'count',
                  action: 'demo.counter',
                  parameters: { key: 'fx-child-count' },
                  dependencies: ['ask'],
                },
              ],
            },
          },
        },
        {
          id: 'after',
          action: 'demo.counter',
          parameters: { key: 'fx-child-after' },
          dependencies: ['child'],
        },
      ],
    });
    const childId = await childRunId({ run_id: runId, step_id: 'child', attempt: 1 });
    await waitForRun(childId, (r) => r.status === 'awaiting_input');
    await waitForRun(runId, (r) => r.step_statuses.child === 'running');
    const at = Date.now();
    await save(
      'child-run',
      {
        about:
          'A parent run (first object) whose step child runs a child run (second object) waiting for a human.input answer.',
        objects: [await dumpObject(runId), await dumpObject(childId)],
        notes: { counters: ['fx-child-count', 'fx-child-after'], child: childId },
      },
      at,
    );
  });
});

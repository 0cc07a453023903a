/**
 * Captures the storage fixtures of this release's format (`npm run capture:storage`, which sets
 * EDGEPLAN_CAPTURE_STORAGE): real runs, driven through the Worker to the states a deploy finds them in,
 * then dumped (test/workers/storage-fixture.ts) and written under test/fixtures/storage/v<N>/ by the
 * sink (./sink.ts). Not part of `npm test`: a format's fixtures are frozen once committed — a new
 * format gets a directory of its own (docs/upgrading.md).
 */
import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { childRunId } from '../../src/engine/child-run';
import type { StepMessage } from '../../src/durable/messages';
import { BASE_FORMAT, formatFor, STORAGE_FORMAT } from '../../src/durable/storage-format';
import { parseRunConfig } from '../../src/plan/config';
import { setLlmFetch } from '../../src/planner/llm-transport';
import worker from '../../src/worker';
import { scriptedLlm } from '../unit/planner-helpers';
import { api, startRun, waitForRun, type Json } from '../workers/helpers';
import { dumpObject, type StorageFixture } from '../workers/storage-fixture';

const DAY_S = 24 * 3600;

/**
 * Writes fixture `name`, whose objects are stamped `format`: the format most runs are written in,
 * unless the run's config needs a newer one (storage-format.ts).
 */
async function save(
  name: string,
  f: Omit<StorageFixture, 'format' | 'captured_at'>,
  at: number,
  format = BASE_FORMAT,
) {
  const stamps = f.objects.map((o) => o.rows.meta!.find((r) => r.key === 'storage_format')?.value ?? null);
  expect(stamps).toEqual(f.objects.map(() => String(format)));
  const fixture: StorageFixture = { format, captured_at: at, ...f };
  const res = await fetch(`${inject('storageSink')}/${name}`, {
    method: 'PUT',
    body: JSON.stringify(fixture),
  });
  expect(res.status).toBe(204);
}

const eventsOf = async (runId: string): Promise<Json[]> =>
  (await api('GET', `/v1/runs/${runId}/events?limit=1000`)).body.events as Json[];

/** A `steps` queue binding that records what is sent and delivers nothing. */
function queueRecorder() {
  const queued: MessageSendRequest<StepMessage>[] = [];
  const binding = {
    send: (body: StepMessage) => Promise.resolve(void queued.push({ body })),
    sendBatch: (msgs: Iterable<MessageSendRequest<StepMessage>>) =>
      Promise.resolve(void queued.push(...msgs)),
  };
  return { queued, binding };
}

/** Until `read` holds, polling (a run's object works on after the request that started it answered). */
async function until(read: () => Promise<boolean>): Promise<void> {
  for (let i = 0; !(await read()); i++) {
    if (i > 500) throw new Error('not reached in 5 s');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A run asking for each plan version's approval, whose failed steps the planner revises. */
const ASK_REVISIONS = {
  require_plan_approval: true,
  approval: { revisions: 'ask', timeout_s: 7 * DAY_S },
  on_step_failure: 'replan',
  retry_failed_steps: 0,
  execution_mode: 'parallel',
  placement: 'queue',
};

afterEach(() => setLlmFetch(null));

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
    const flakyKey = `fx-retry-f-v${STORAGE_FORMAT}`;
    const runId = await startRun(
      {
        steps: [
          // Keyed by format: every format's fixture of this state runs in one runtime, on one counter.
          { id: 'f', action: 'demo.flaky', parameters: { key: flakyKey, fail_times: 1 } },
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
        notes: { counters: ['fx-retry-after'], flaky: { [flakyKey]: 1 } },
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

  it('revision-approval: plan v2, written after v1 failed, waits for its approval (revisions: "ask")', async () => {
    const a = { id: 'a', action: 'demo.counter', parameters: { key: 'fx-revision-a' }, dependencies: [] };
    const bad = {
      id: 'bad',
      action: 'demo.flaky',
      parameters: { key: `fx-revision-bad-${crypto.randomUUID()}`, fail_times: 99, permanent: true },
      dependencies: ['a'],
    };
    const fixed = {
      id: 'fixed',
      action: 'demo.counter',
      parameters: { key: 'fx-revision-fixed' },
      dependencies: ['a'],
    };
    setLlmFetch(scriptedLlm([JSON.stringify({ steps: [a, fixed] })]).fetch);
    const runId = await startRun({ steps: [a, bad] }, ASK_REVISIONS);
    await waitForRun(runId, (r) => r.status === 'awaiting_approval');
    expect((await api('POST', `/v1/runs/${runId}/approval`, { decision: 'approve' })).status).toBe(200);
    await waitForRun(runId, (r) => r.status === 'awaiting_approval' && r.plan_version === 2);
    const at = Date.now();
    await save(
      'revision-approval',
      {
        about:
          'A run (approval.revisions: "ask") whose v1 ran a (counts) and failed at bad; the planner wrote v2 (a, fixed: counts), which waits for its approval.',
        objects: [await dumpObject(runId)],
        notes: { counters: ['fx-revision-fixed'] },
      },
      at,
      formatFor(parseRunConfig(ASK_REVISIONS)),
    );
  });

  it('held-back-question: a human.input step begun while a revision waits for approval, not asked', async () => {
    const ask = {
      id: 'ask',
      action: 'human.input',
      parameters: { prompt: 'Which region?' },
      dependencies: [],
    };
    const bad = {
      id: 'bad',
      action: 'demo.flaky',
      parameters: { key: `fx-held-bad-${crypto.randomUUID()}`, fail_times: 99, permanent: true },
      dependencies: [],
    };
    const after = {
      id: 'after',
      action: 'demo.echo',
      parameters: { region: '{{ steps.ask.output }}' },
      dependencies: ['ask'],
    };
    const count = {
      id: 'count',
      action: 'demo.counter',
      parameters: { key: 'fx-held-count' },
      dependencies: ['after'],
    };
    setLlmFetch(scriptedLlm([JSON.stringify({ steps: [ask, after, count] })]).fetch);
    const runId = await startRun({ steps: [ask, bad] }, ASK_REVISIONS);
    await waitForRun(runId, (r) => r.status === 'awaiting_approval');
    // The run's object sends v1's two steps to a queue that delivers nothing, so the order is ours:
    // bad fails first, and ask's consumer comes once v2 waits for its approval.
    const { queued, binding } = queueRecorder();
    await runInDurableObject(env.PLAN_RUN.getByName(runId), (instance) => {
      const object = instance as unknown as { env: Env };
      object.env = { ...object.env, STEPS: binding as unknown as Queue<StepMessage> };
    });
    expect((await api('POST', `/v1/runs/${runId}/approval`, { decision: 'approve' })).status).toBe(200);
    await until(() => Promise.resolve(queued.length === 2));
    const message = (id: string) => queued.find((m) => m.body.step_id === id)!.body;
    await env.STEPS.send(message('bad'));
    await waitForRun(runId, (r) => r.status === 'awaiting_approval' && r.plan_version === 2);
    await env.STEPS.send(message('ask'));
    // Its consumer begins it and hands it over; the question is not recorded while the run waits.
    await until(async () => {
      const lease = await runInDurableObject(env.PLAN_RUN.getByName(runId), (_i, state) =>
        state.storage.sql.exec<{ until: number }>("SELECT until FROM leases WHERE step_id = 'ask'").toArray(),
      );
      return (lease[0]?.until ?? 0) > Date.now() + 3600_000;
    });
    const log = await eventsOf(runId);
    expect(log.some((e) => e.event_type === 'ToolInvoked' && e.payload.step_id === 'ask')).toBe(true);
    expect(log.some((e) => e.event_type === 'InputRequested')).toBe(false);
    const at = Date.now();
    await save(
      'held-back-question',
      {
        about:
          'A run (approval.revisions: "ask") whose v2 waits for approval after bad failed; its human.input step ask began meanwhile, on the queue, and its question was held back.',
        objects: [await dumpObject(runId)],
        notes: { counters: ['fx-held-count'] },
      },
      at,
      formatFor(parseRunConfig(ASK_REVISIONS)),
    );
  });

  it('idempotent-run: a run created with an Idempotency-Key, its first step sent to the queue', async () => {
    const { queued, binding } = queueRecorder();
    const key = `fx-idempotent-${crypto.randomUUID()}`;
    const body = {
      plan: {
        steps: [
          { id: 'first', action: 'demo.counter', parameters: { key: 'fx-idempotent-first' } },
          {
            id: 'then',
            action: 'demo.counter',
            parameters: { key: 'fx-idempotent-then' },
            dependencies: ['first'],
          },
        ],
      },
      config: { execution_mode: 'parallel', placement: 'queue' },
    };
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request('http://edgeplan.test/v1/runs', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'Idempotency-Key': key },
        body: JSON.stringify(body),
      }),
      { ...env, STEPS: binding } as unknown as Env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(201);
    const runId = (await res.json<{ run_id: string }>()).run_id;
    expect(queued.map((m) => m.body.step_id)).toEqual(['first']);
    const at = Date.now();
    await save(
      'idempotent-run',
      {
        about:
          'A run created with an Idempotency-Key (its id derived from the key, its request fingerprint stored) whose first step waits on the steps queue.',
        objects: [await dumpObject(runId)],
        queued,
        notes: { counters: ['fx-idempotent-first', 'fx-idempotent-then'], key, body },
      },
      at,
    );
  });
});

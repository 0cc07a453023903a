/**
 * A step message the `steps` consumer fails on until the queue gives up, through the real queues of
 * wrangler.toml (`max_retries = 10`, `dead_letter_queue = "steps-dlq"`): the queue moves it to
 * `steps-dlq`, whose consumer fails the attempt as `dead_lettered` — not retried, the queue already
 * tried — and the run's failure handling takes over, as README ("Dead letters") and docs/operating.md
 * (`dead_letters_failed`) say: the run ends by itself instead of waiting for the step's deadline. The
 * consumer's failure is made by the run's object refusing every begin of the attempt, as a consumer
 * killed over its CPU limit would fail each delivery.
 */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlanRun } from '../../src/durable/plan-run';
import { events, startRun, waitForRun, type Json } from './helpers';

/** `s` on the queue after `a` (in the object); every delivery of s's first attempt fails its consumer. */
async function deadLettered(s: Json, config: Json = {}) {
  const runId = await startRun(
    {
      steps: [
        { id: 'a', action: 'demo.sleep', parameters: { ms: 300, value: 'a' } },
        {
          id: 's',
          action: 'demo.counter',
          parameters: { key: `dlq-${crypto.randomUUID()}` },
          dependencies: ['a'],
          ...s,
        },
        { id: 'after', action: 'demo.echo', parameters: { s: '{{ steps.s.output }}' }, dependencies: ['s'] },
      ],
    },
    { execution_mode: 'parallel', ...config },
  );
  const refused: number[] = [];
  // On the class, for this run only: RPC calls methods of the prototype, not an instance's own.
  let restore = () => undefined as void;
  await runInDurableObject(env.PLAN_RUN.getByName(runId), (instance: PlanRun) => {
    const proto = Object.getPrototypeOf(instance) as PlanRun;
    // The pool may wrap the class: the method is found up the chain, and put back as it was.
    const own = Object.getOwnPropertyDescriptor(proto, 'beginSteps');
    const begin: PlanRun['beginSteps'] = Reflect.get(proto, 'beginSteps');
    proto.beginSteps = function (this: PlanRun, requests) {
      const mine = (this as unknown as { ctx: DurableObjectState }).ctx.id.name === runId;
      if (!mine || !requests.some((r) => r.step_id === 's' && r.attempt === 1))
        return begin.call(this, requests);
      refused.push(Date.now());
      return Promise.reject(new Error('the consumer died on this message'));
    };
    restore = () =>
      void (own
        ? Object.defineProperty(proto, 'beginSteps', own)
        : Reflect.deleteProperty(proto, 'beginSteps'));
  });
  return { runId, refused, restore };
}

const returned = async (runId: string) =>
  (await events(runId))
    .filter((e) => e.event_type === 'ToolReturned' && e.payload.step_id === 's')
    .map((e) => [e.payload.attempt, e.payload.success, e.payload.error?.code]);

describe('a step message the consumer fails on until the queue gives up', () => {
  // Both runs at once: each waits out the queue's ten redeliveries, which is most of this file's time.
  // The second's refusal wraps the first's (each refuses only its own run); put back in reverse.
  const failed = { runId: '', refused: [] as number[] };
  const fallback = { runId: '', refused: [] as number[] };
  let restores: (() => void)[] = [];
  beforeAll(async () => {
    const f = await deadLettered({}, { retry_failed_steps: 3 });
    const b = await deadLettered({
      fallback_action: { action: 'demo.echo', parameters: { fallback: true } },
    });
    Object.assign(failed, { runId: f.runId, refused: f.refused });
    Object.assign(fallback, { runId: b.runId, refused: b.refused });
    restores = [b.restore, f.restore];
  });
  afterAll(() => restores.forEach((restore) => restore()));

  it('fails its attempt as dead_lettered, not retried, and the run ends failed by itself', async () => {
    const run = await waitForRun(failed.runId, undefined, 40_000);
    // The first delivery and max_retries more, then the dead-letter queue.
    expect(failed.refused).toHaveLength(11);
    expect(run.status).toBe('failed');
    expect(run.steps.s).toMatchObject({
      status: 'failed',
      error: { code: 'dead_lettered', retryable: false },
    });
    expect(run.steps.after).toMatchObject({ status: 'skipped', skip_reason: 'run_terminated' });
    expect(await returned(failed.runId)).toEqual([[1, false, 'dead_lettered']]);
  }, 60_000);

  it('hands the failure to the step’s fallback, and the run completes', async () => {
    const run = await waitForRun(fallback.runId, undefined, 40_000);
    expect(fallback.refused).toHaveLength(11);
    expect(run.status).toBe('completed');
    expect(run.step_results.after).toEqual({ s: { fallback: true } });
    expect((await returned(fallback.runId))[0]).toEqual([1, false, 'dead_lettered']);
  }, 60_000);
});

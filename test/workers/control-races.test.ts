/**
 * The run's controls sent at the same moment by people and programs — retries, a cancel, DELETEs, new
 * runs under one Idempotency-Key — through the Worker and the run's object: one request does what it
 * asks and each other is refused with the documented code, never a 5xx; the trace stays one line
 * (seq increasing, each attempt invoked once), and the run ends as the one taken implies.
 */
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, events, startRun, waitForRun, type Json } from './helpers';

type Answer = Awaited<ReturnType<typeof api>>;

/** A run whose step `f` failed once (its next attempt succeeds), after `ok` completed. */
async function failedRun(): Promise<string> {
  const key = `control-race-${crypto.randomUUID()}`;
  const runId = await startRun(
    {
      steps: [
        { id: 'ok', action: 'demo.echo', parameters: { v: 1 } },
        { id: 'f', action: 'demo.flaky', parameters: { fail_times: 1, key }, dependencies: ['ok'] },
      ],
    },
    { retry_failed_steps: 0 },
  );
  await waitForRun(runId, (r) => r.status === 'failed');
  return runId;
}

/** Seq strictly increasing, and no attempt of a step invoked twice. */
function oneLine(log: Json[]): void {
  const seqs = log.map((e) => e.seq as number);
  expect(seqs.every((s, i) => i === 0 || s > seqs[i - 1]!)).toBe(true);
  const invoked = log
    .filter((e) => e.event_type === 'ToolInvoked')
    .map((e) => `${e.payload.step_id}#${e.payload.attempt}`);
  expect(new Set(invoked).size).toBe(invoked.length);
}

const reasonOf = (a: Answer) => (a.body.error?.details?.reason ?? a.body.error?.code) as string | undefined;

describe('controls sent at once', () => {
  it('retries: one resumes the run, each other is 409 run_not_retryable, the failed step runs once more', async () => {
    const runId = await failedRun();
    const answers = await Promise.all(
      [undefined, 'f', undefined, 'f', undefined].map((step) =>
        api('POST', `/v1/runs/${runId}/retry`, step ? { step_id: step } : {}),
      ),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 200)) {
      expect([a.status, reasonOf(a)]).toEqual([409, 'run_not_retryable']);
    }
    const run = await waitForRun(runId);
    expect(run.status).toBe('completed');
    // demo.flaky answers the count of its calls: two — the failure, and the one retry.
    expect(run.step_results.f).toEqual({ attempts: 2 });
    const log = await events(runId);
    expect(log.filter((e) => e.event_type === 'RunResumed')).toHaveLength(1);
    oneLine(log);
  });

  it('a cancel and retries of a failed run: the run ends as the order they were taken in implies', async () => {
    for (let round = 0; round < 4; round++) {
      const runId = await failedRun();
      const cancel = () => api('POST', `/v1/runs/${runId}/cancel`, {});
      const retry = () => api('POST', `/v1/runs/${runId}/retry`, {});
      const sent = round % 2 ? [cancel, retry, retry] : [retry, cancel, retry];
      const answers = await Promise.all(sent.map((f) => f()));
      expect(answers.every((a) => a.status === 200 || a.status === 409)).toBe(true);
      const [c] = answers.filter((_, i) => sent[i] === cancel);
      const retried = answers.filter((a, i) => sent[i] === retry && a.status === 200);
      // A cancel of the failed run is refused (it ended), unless a retry had it running again.
      expect(c!.status === 409 ? reasonOf(c!) === 'run_finished' : retried.length > 0).toBe(true);
      const run = await waitForRun(runId);
      const log = await events(runId);
      expect(log.filter((e) => e.event_type === 'RunResumed')).toHaveLength(retried.length);
      const ends = log.filter((e) => e.event_type === 'RunTerminated');
      expect(ends.at(-1)!.payload.status).toBe(run.status);
      // A cancel taken stopped a retried run: its end is recorded, after the retry that ran it again.
      expect(c!.status !== 200 || ends.some((e) => e.payload.status === 'cancelled')).toBe(true);
      oneLine(log);
    }
  });

  it('DELETEs racing a retry and a decision: deleted and 404 after, or refused while the retry runs it', async () => {
    for (let round = 0; round < 4; round++) {
      const runId = await failedRun();
      const del = () => api('DELETE', `/v1/runs/${runId}`);
      const sent = [
        del,
        () => api('POST', `/v1/runs/${runId}/retry`, {}),
        () => api('POST', `/v1/runs/${runId}/approval`, { decision: 'approve' }),
        del,
      ];
      const order = sent.map((_, i) => sent[(i + round) % sent.length]!);
      const answers = await Promise.all(order.map((f) => f()));
      expect(answers.every((a) => a.status < 500)).toBe(true);
      const deleted = answers.some((a, i) => order[i] === del && a.status === 200);
      const after = await api('GET', `/v1/runs/${runId}`);
      expect(after.status).toBe(deleted ? 404 : 200);
      // Not deleted: a DELETE came while the retry ran it — refused, cancel first.
      for (const [i, a] of answers.entries()) {
        expect(deleted || order[i] !== del || reasonOf(a) === 'run_active').toBe(true);
      }
      const listed = await api('GET', '/v1/runs?limit=100');
      expect((listed.body.runs as Json[]).some((r) => r.run_id === runId)).toBe(!deleted);
      if (!deleted) await waitForRun(runId);
    }
  });

  it('two DELETEs at once share the one deletion and its 200; one sent after it is a 404', async () => {
    const runId = await failedRun();
    const both = await Promise.all([1, 2].map(() => api('DELETE', `/v1/runs/${runId}`)));
    expect(both.map((a) => a.status)).toEqual([200, 200]);
    expect(both[0]!.body).toEqual(both[1]!.body);
    expect(both[0]!.body).toMatchObject({ run_id: runId });
    expect((await api('DELETE', `/v1/runs/${runId}`)).status).toBe(404);
    expect((await api('GET', `/v1/runs/${runId}`)).status).toBe(404);
  });

  it('POST /v1/runs under one Idempotency-Key with the same and other bodies: one run; the same body replayed, another 422', async () => {
    for (let round = 0; round < 3; round++) {
      const key = `control-race-key-${crypto.randomUUID()}`;
      const body = (v: number) => ({
        plan: { steps: [{ id: 'a', action: 'demo.echo', parameters: { v } }] },
      });
      const bodies = [body(1), body(2), body(1), body(1), body(2)];
      const answers = await Promise.all(
        bodies.map((b, i) =>
          exportsFetch(key, bodies[(i + round) % bodies.length]!).then((a) => ({
            ...a,
            sent: (i + round) % 5,
          })),
        ),
      );
      const created = answers.filter(
        (a) => a.status === 201 && a.headers.get('Idempotent-Replayed') === null,
      );
      expect(created).toHaveLength(1);
      const v = bodies[created[0]!.sent]!.plan.steps[0]!.parameters.v;
      for (const a of answers) {
        const same = bodies[a.sent]!.plan.steps[0]!.parameters.v === v;
        expect(same ? [a.status, a.body.run_id] : [a.status, a.body.error.code]).toEqual(
          same ? [201, created[0]!.body.run_id] : [422, 'idempotency_key_reused'],
        );
      }
    }
  });
});

/** POST /v1/runs with the key. */
async function exportsFetch(key: string, body: unknown): Promise<Answer> {
  const res = await exports.default.fetch(
    new Request('http://edgeplan.test/v1/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'Idempotency-Key': key },
      body: JSON.stringify(body),
    }),
  );
  return { status: res.status, body: await res.json<Json>(), headers: res.headers };
}

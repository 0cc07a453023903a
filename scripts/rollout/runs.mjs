/**
 * The runs a rollout rehearsal starts and how it waits on them, through whichever Worker is in front.
 *
 * @example
 * const runs = rehearsalRuns(api, 'ro-x1');
 * const { runId, done } = await runs.answered('q', { approver: 'Ada' });
 */
export const ENDED = ['completed', 'failed', 'aborted', 'cancelled'];

/**
 * Every step on the queue, so that the front's consumer runs it (by default a run's steps run
 * in its object: `execution_mode` is sequential, and the demo tools ask for `placement: "object"`).
 */
export const QUEUED = { execution_mode: 'parallel', placement: 'queue' };

/** Where a run's attempts were sent: each StepScheduled's `dispatch`, and any StepRedispatched's. */
export const dispatches = (log) =>
  log
    .filter((e) => e.event_type === 'StepScheduled' || e.event_type === 'StepRedispatched')
    .map((e) => `${e.event_type === 'StepRedispatched' ? 'redispatched ' : ''}${e.payload.dispatch}`);

/** `n` attempts sent to the queue, none moved into the object for want of a consumer. */
export const onQueue = (log, n) => {
  const d = dispatches(log);
  return d.length === n && d.every((x) => x === 'queue');
};

export function rehearsalRuns({ call, until }, tag) {
  /** One `demo.counter` step, counting under a key of its own. */
  const plan = (id) => ({ steps: [{ id, action: 'demo.counter', parameters: { key: `${tag}-${id}` } }] });
  /** One `human.input` step. */
  const question = (id) => ({ steps: [{ id, action: 'human.input', parameters: { prompt: `${id}?` } }] });
  const runOf = async (id) => (await call('GET', `/v1/runs/${id}`)).body;
  /** Waits until run `id` is `status` (or has ended, with `ENDED`), and returns it. */
  const reaches = (id, done) =>
    until(
      `run ${id}`,
      () => runOf(id),
      (r) => (Array.isArray(done) ? done.includes(r.status) : r.status === done),
    );
  /**
   * Starts a run of one question, answers it once asked (`{input: 'yes', step_id}` and `extra`), and
   * waits for its end.
   */
  async function answered(id, extra = {}) {
    const started = await call('POST', '/v1/runs', { plan: question(id) });
    const runId = started.body.run_id;
    await reaches(runId, 'awaiting_input');
    const sent = await call('POST', `/v1/runs/${runId}/input`, { input: 'yes', step_id: id, ...extra });
    const done = await reaches(runId, ENDED);
    return { runId, started, sent, done };
  }
  return { plan, question, runOf, reaches, answered };
}

/**
 * A run waiting for a person's answer starts nothing new, but the attempts it has in flight go on as
 * in a running run: a failure is retried (once the answer is in), a retry waiting for its time is
 * kept — and the run's next wake-up is never a time already past, which an object's alarm fires at
 * once, again and again.
 */
import { describe, expect, it } from 'vitest';
import { echo, harness } from './engine-helpers';

const ask = { id: 'q', action: 'human.input', parameters: { prompt: 'Ship it?' }, timeout_ms: 3_600_000 };
const config = { execution_mode: 'parallel', retry_delay: 4, retry_failed_steps: 2 } as const;

/** The run asks `q` (a `human.input` step) while `d` runs beside it. */
function asking() {
  const h = harness({ steps: [ask, echo('d')] }, config);
  h.events.push(
    ...h.machine.handle({ type: 'await_input', step_id: 'q', attempt: 1, prompt: 'Ship it?' }).events,
  );
  expect(h.state.status).toBe('awaiting_input');
  return h;
}

const answer = (h: ReturnType<typeof harness>) =>
  h.events.push(...h.machine.handle({ type: 'input', input: 'yes', step_id: 'q' }).events);

const nextWakeIsAhead = (h: ReturnType<typeof harness>) => {
  const at = h.machine.nextWakeAt();
  return at === null || at > h.now();
};

describe('attempts in flight while the run awaits input', () => {
  it('retries a step that fails while the question waits, once the answer is in', () => {
    const h = asking();
    h.fail('d');
    expect(h.types()).not.toContain('StepFailed');
    expect(h.events.filter((e) => e.event_type === 'StepRetried')).toHaveLength(1);
    // Its time comes while the question still waits: nothing new starts, and the run does not wake
    // for it over and over.
    h.advance(10_000);
    expect(h.state.steps.get('d')).toMatchObject({ status: 'pending', attempt: 1 });
    expect(nextWakeIsAhead(h)).toBe(true);
    answer(h);
    expect(h.state.steps.get('d')).toMatchObject({ status: 'running', attempt: 2 });
    h.ok('d', 'done');
    expect(h.state.status).toBe('completed');
    expect(h.snapshot().steps.d!.status).toBe('completed');
  });

  it('keeps a step waiting for its retry when a question is asked meanwhile', () => {
    const h = harness({ steps: [ask, echo('d')] }, config);
    h.fail('d');
    expect(h.status('d')).toBe('pending');
    h.events.push(
      ...h.machine.handle({ type: 'await_input', step_id: 'q', attempt: 1, prompt: 'Ship it?' }).events,
    );
    // It was skipped as if the run had ended (`run_terminated`), and the run then completed without it.
    expect(h.types()).not.toContain('StepSkipped');
    expect(h.status('d')).toBe('pending');
    h.advance(10_000);
    answer(h);
    expect(h.state.steps.get('d')).toMatchObject({ status: 'running', attempt: 2 });
  });

  it('still times out an attempt whose deadline passes while the question waits', () => {
    const h = asking();
    h.advance(61_000);
    expect(h.events.find((e) => e.event_type === 'ToolReturned')?.payload).toMatchObject({
      step_id: 'd',
      success: false,
      error: { code: 'timeout' },
    });
    expect(h.types()).toContain('StepRetried');
  });
});

describe('a retry whose time comes while every slot is taken', () => {
  it('does not make the run wake at a time already past', () => {
    const h = harness({ steps: [echo('a'), echo('b')] }, { ...config, max_parallel: 1 });
    h.fail('a');
    expect(h.status('b')).toBe('running');
    h.advance(5_000);
    expect(h.status('a')).toBe('pending');
    expect(nextWakeIsAhead(h)).toBe(true);
    h.ok('b', 'b');
    expect(h.state.steps.get('a')).toMatchObject({ status: 'running', attempt: 2 });
  });
});

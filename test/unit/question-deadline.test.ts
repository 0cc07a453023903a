/**
 * A `human.input` step's question says when it is due and what happens then if nobody answers
 * (`InputRequested`'s `deadline`, `if_unanswered`, `retries_left`): the instant its attempt times
 * out, and then a retry that asks again, the fallback, or the step's failure. A question about a
 * failed step (`ask_user`) waits without a limit and says none.
 */
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/engine/events';
import { echo, harness } from './engine-helpers';

const HOUR = 3_600_000;
const ask = (extra: Record<string, unknown> = {}) => ({
  id: 'q',
  action: 'human.input',
  parameters: { prompt: 'Ship it?' },
  timeout_ms: HOUR,
  ...extra,
});

type H = ReturnType<typeof harness>;
const asked = (h: H) => {
  const attempt = h.state.steps.get('q')!.attempt;
  h.events.push(
    ...h.machine.handle({ type: 'await_input', step_id: 'q', attempt, prompt: 'Ship it?' }).events,
  );
  return h.events.findLast((e) => e.event_type === 'InputRequested') as RunEvent<'InputRequested'>;
};
const iso = (ms: number) => new Date(ms).toISOString();

describe("a human.input step's question", () => {
  it('is due when its attempt times out, and is asked again while retries are left', () => {
    const h = harness({ steps: [ask()] }, { retry_failed_steps: 2, retry_delay: 1 });
    const start = h.now();
    h.advance(5_000);
    const first = asked(h);
    // The attempt's deadline, from when it was scheduled: not from when the question was put.
    expect(first.payload).toMatchObject({
      deadline: iso(start + HOUR),
      if_unanswered: 'asked_again',
      retries_left: 2,
    });
    // That instant, and not before, the attempt times out and the step is retried.
    h.advance(HOUR - 5_001);
    expect(h.types()).not.toContain('ToolReturned');
    h.advance(1);
    expect(h.events.find((e) => e.event_type === 'ToolReturned')?.payload).toMatchObject({
      step_id: 'q',
      error: { code: 'timeout' },
    });
    expect(h.types()).toContain('StepRetried');
    h.advance(1_000); // the retry's backoff
    expect(h.state.steps.get('q')).toMatchObject({ status: 'running', attempt: 2 });
    const again = h.now();
    expect(asked(h).payload).toMatchObject({
      deadline: iso(again + HOUR),
      if_unanswered: 'asked_again',
      retries_left: 1,
    });
  });

  it('says the step fails then when no retry is left', () => {
    const h = harness({ steps: [ask()] }, { retry_failed_steps: 0 });
    const start = h.now();
    expect(asked(h).payload).toMatchObject({
      deadline: iso(start + HOUR),
      if_unanswered: 'step_fails',
      retries_left: 0,
    });
    h.advance(HOUR);
    expect(h.status('q')).toBe('failed');
  });

  it('says its fallback runs then, when it has one and no retry', () => {
    const h = harness({ steps: [ask({ fallback_action: 'demo.echo' })] }, { retry_failed_steps: 0 });
    expect(asked(h).payload).toMatchObject({ if_unanswered: 'falls_back', retries_left: 0 });
    h.advance(HOUR);
    expect(h.state.steps.get('q')).toMatchObject({ status: 'running', on_fallback: true });
  });

  it('has no deadline when it asks how to go on after a failed step (ask_user)', () => {
    const config = {
      on_step_failure: 'replan',
      revision_strategy: 'ask_user',
      retry_failed_steps: 0,
    } as const;
    const h = harness({ steps: [echo('a')] }, config);
    h.fail('a');
    const question = h.events.findLast((e) => e.event_type === 'InputRequested')!;
    expect(question.payload).toMatchObject({ step_id: 'a' });
    expect(question.payload).not.toHaveProperty('deadline');
    expect(question.payload).not.toHaveProperty('if_unanswered');
  });
});

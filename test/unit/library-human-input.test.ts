/**
 * `human.input` in process, through the package's entry point: the same tool the Worker runs, so a
 * plan written for the Worker asks its question in a `LocalRunner` too, and `provideInput` answers it
 * as `POST /v1/runs/:id/input` does — an answer that does not fit the question's schema is refused and
 * the step keeps waiting, a late answer is refused.
 */
import { describe, expect, it } from 'vitest';
import { humanInput, LocalRunner } from '../../src/index';
import { settle } from './library-helpers';

const schema = { type: 'object', properties: { refund: { type: 'boolean' } }, required: ['refund'] };

describe('human.input in a LocalRunner', () => {
  it('waits for the answer, refuses one that does not fit its schema, and takes the answer as the step’s output', async () => {
    const runner = new LocalRunner({ tools: [humanInput] });
    runner.start({
      plan: { steps: [{ id: 'ask', action: 'human.input', parameters: { prompt: 'Refund?', schema } }] },
    });
    await settle();
    expect(runner.snapshot().status).toBe('awaiting_input');
    expect(runner.events.map((e) => e.event_type)).toContain('InputRequested');

    const misfit = runner.provideInput({ refund: 'maybe' }, 'ask');
    expect(misfit).toMatchObject({ code: 'invalid_request', details: { reason: 'answer_does_not_fit' } });
    expect(runner.snapshot().status).toBe('awaiting_input');

    expect(runner.provideInput({ refund: true }, 'ask')).toBeUndefined();
    const end = await runner.done();
    expect(end.status).toBe('completed');
    expect(end.step_results.ask).toEqual({ refund: true });
    expect(runner.provideInput({ refund: false }, 'ask')).toMatchObject({
      code: 'conflict',
      details: { reason: 'input_not_awaited', step_id: 'ask' },
    });
  });
});

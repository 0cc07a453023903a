/**
 * A run object's `input()` reads what a Worker from before `approver` hands it whole — a body with
 * `approver` beside the answer — as this release's Worker reads a body; what any other call passes is
 * taken as it is (src/durable/older-worker-answer.ts).
 */
import { describe, expect, it } from 'vitest';
import { accessGuards, inputOfCall, type InputCall } from '../../src/durable/older-worker-answer';

/** A call as a Worker from before `approver` makes it for a body with other keys: the body whole. */
const older = (body: unknown): InputCall => ({
  input: body,
  step_id: undefined,
  answered_by: undefined,
  split: undefined,
});

describe('an input() call from a Worker before approver', () => {
  it('reads a body with approver as an answer to its step, by that name', () => {
    expect(inputOfCall(older({ input: 'yes', step_id: 'ask', approver: 'Ada' }), false)).toEqual({
      input: 'yes',
      step_id: 'ask',
      answered_by: 'Ada',
    });
  });

  it('reads {input, approver} as the input alone, and {other keys, approver} as the others whole', () => {
    expect(inputOfCall(older({ input: { n: 1 }, approver: 'Ada' }), false)).toEqual({
      input: { n: 1 },
      answered_by: 'Ada',
    });
    expect(inputOfCall(older({ budget: 5, approver: 'Ada' }), false)).toEqual({
      input: { budget: 5 },
      answered_by: 'Ada',
    });
  });

  it('records no name behind Cloudflare Access, where the older Worker did not check it', () => {
    expect(inputOfCall(older({ input: 'yes', step_id: 'ask', approver: 'Mallory' }), true)).toEqual({
      input: 'yes',
      step_id: 'ask',
    });
  });

  it('refuses what this release refuses: approver alone, a bad name, step_id with another key', () => {
    const alone = inputOfCall(older({ approver: 'Ada' }), false);
    expect(alone).toEqual({
      code: 'invalid_request',
      message: expect.stringContaining('the answer goes beside it'),
    });
    const blank = inputOfCall(older({ input: 'yes', approver: ' ' }), false);
    expect(blank).toEqual({ code: 'invalid_request', message: expect.stringContaining('approver:') });
    const typo = inputOfCall(older({ inptu: 'yes', step_id: 'ask', approver: 'Ada' }), false);
    expect(typo).toEqual({ code: 'invalid_request', message: expect.stringContaining('"input"') });
  });

  it('takes a body without approver as it is, as before', () => {
    expect(inputOfCall(older({ budget: 5 }), false)).toEqual({ input: { budget: 5 } });
    expect(inputOfCall(older('yes'), false)).toEqual({ input: 'yes' });
    expect(inputOfCall(older(['approver']), false)).toEqual({ input: ['approver'] });
    expect(inputOfCall(older(null), false)).toEqual({ input: null });
  });
});

describe('an input() call the Worker read itself', () => {
  it('takes the answer as it is when the Worker says it read approver (an answer with a key approver of its own)', () => {
    const call: InputCall = {
      input: { input: 'x', approver: 'y' },
      step_id: undefined,
      answered_by: undefined,
      split: true,
    };
    expect(inputOfCall(call, false)).toEqual({ input: { input: 'x', approver: 'y' } });
  });

  it('takes {input, step_id} passed as two arguments, and a name as the third, as they are', () => {
    expect(
      inputOfCall({ input: 'yes', step_id: 'ask', answered_by: undefined, split: undefined }, false),
    ).toEqual({
      input: 'yes',
      step_id: 'ask',
    });
    expect(inputOfCall({ input: 'yes', step_id: 'ask', answered_by: 'Ada', split: undefined }, true)).toEqual(
      {
        input: 'yes',
        step_id: 'ask',
        answered_by: 'Ada',
      },
    );
  });
});

describe('accessGuards', () => {
  it('holds when either Access setting is set, not for blanks', () => {
    expect(accessGuards({})).toBe(false);
    expect(accessGuards({ ACCESS_TEAM_DOMAIN: ' ', ACCESS_AUD: '' })).toBe(false);
    expect(accessGuards({ ACCESS_AUD: 'abc' })).toBe(true);
    expect(accessGuards({ ACCESS_TEAM_DOMAIN: 'https://acme.cloudflareaccess.com' })).toBe(true);
  });
});

/**
 * A run's time split from its events (src/client/run-time.ts): how long it ran, and how long it
 * waited for a person — for its plan's approval, for an answer — so a run approved after hours that
 * worked for seconds does not read as hours of work; and those durations in words.
 */
import { describe, expect, it } from 'vitest';
import {
  advanceRunClock,
  humanDuration,
  runTimeAt,
  runTimeOf,
  runTimeText,
  startRunClock,
} from '../../src/client/run-time';
import { runEventBuilder } from './run-event-builder';

const S = 1000;
const H = 3600 * S;

describe('a run’s time', () => {
  it('counts the wait for its plan’s approval apart from the time it ran', () => {
    const ev = runEventBuilder();
    const events = [
      ev('RunCreated', { run_id: 'run_1', goal: 'g', config: {}, input: null }, null, 0),
      ev('PlanAuthored', {}, 1, 100),
      ev('ApprovalRequested', { deadline_at: null, plan_version: 1 }, 1, 200),
      ev('ApprovalGranted', { by: 'approver' }, 1, 200 + 3 * H),
      ev('StepScheduled', { step_id: 'a' }, 1, 200 + 3 * H),
      ev('RunTerminated', { status: 'completed', reason: 'success' }, 1, 200 + 3 * H + 2100),
    ];
    const t = runTimeOf(events, 10 * H);
    expect(t).toEqual({ running_ms: 2100, waited_ms: { approval: 3 * H, input: 0 }, started: true });
    expect(runTimeText(t)).toBe('2.1 s running · waited 3 h for approval');
  });

  it('counts each wait for an answer, a revision’s approval, and a wait cut off by a cancel', () => {
    const ev = runEventBuilder();
    const events = [
      ev('RunStarted', {}, 1, 0),
      ev('InputRequested', { reason: 'human.input', step_id: 'ask', prompt: '?' }, 1, 1 * S),
      ev('InputReceived', { input: 'yes', step_id: 'ask' }, 1, 1 * S + 5 * 60 * S),
      ev('ApprovalRequested', { deadline_at: null, plan_version: 2 }, 2, 2 * S + 5 * 60 * S),
      ev('ApprovalGranted', { by: 'timeout' }, 2, 2 * S + 65 * 60 * S),
      ev('InputRequested', { reason: 'human.input', step_id: 'more' }, 2, 3 * S + 65 * 60 * S),
      ev('RunTerminated', { status: 'cancelled', reason: 'stop' }, 2, 3 * S + 66 * 60 * S),
    ];
    const t = runTimeOf(events, 100 * H);
    expect(t).toEqual({
      running_ms: 3 * S,
      waited_ms: { approval: 60 * 60 * S, input: 6 * 60 * S },
      started: true,
    });
    expect(runTimeText(t)).toBe('3.0 s running · waited 1 h for approval, 6 min for input');
  });

  it('counts a run still going up to now, in what it does now', () => {
    const ev = runEventBuilder();
    const started = ev('RunStarted', {}, 1, 0);
    const asked = ev('InputRequested', { reason: 'human.input', step_id: 'ask' }, 1, 4 * S);
    const now = Date.parse(started.timestamp) + 4 * S + 90 * S;
    expect(runTimeOf([started], Date.parse(started.timestamp) + 2500).running_ms).toBe(2500);
    expect(runTimeOf([started, asked], now)).toEqual({
      running_ms: 4 * S,
      waited_ms: { approval: 0, input: 90 * S },
      started: true,
    });
  });

  it('leaves out the time between a run’s end and its retry, and new information sent while it runs', () => {
    const ev = runEventBuilder();
    const events = [
      ev('RunStarted', {}, 1, 0),
      ev('InputReceived', { input: { hint: 'x' } }, 1, 500),
      ev('RunTerminated', { status: 'failed', reason: 'steps_failed' }, 1, 1 * S),
      ev('RunResumed', { step_ids: ['a'] }, 1, 2 * H),
      ev('RunTerminated', { status: 'completed', reason: 'success' }, 1, 2 * H + 1500),
    ];
    const t = runTimeOf(events, 10 * H);
    expect(t.running_ms).toBe(2500);
    expect(runTimeText(t)).toBe('2.5 s running');
  });

  it('says nothing of a run that neither started nor waited, and the wait of a plan rejected before it ran', () => {
    const ev = runEventBuilder();
    const planning = [ev('RunCreated', { run_id: 'run_1', goal: 'g', config: {}, input: null }, null, 0)];
    expect(runTimeText(runTimeOf(planning, Date.parse(planning[0]!.timestamp) + 5 * S))).toBe('');
    const rejected = [
      ev('ApprovalRequested', { deadline_at: null, plan_version: 1 }, 1, 0),
      ev('ApprovalRejected', { by: 'approver' }, 1, 20 * 60 * S),
      ev('RunTerminated', { status: 'cancelled', reason: 'plan_rejected' }, 1, 20 * 60 * S),
    ];
    const t = runTimeOf(rejected, 10 * H);
    expect(t).toEqual({ running_ms: 0, waited_ms: { approval: 20 * 60 * S, input: 0 }, started: false });
    expect(runTimeText(t)).toBe('0 ms running · waited 20 min for approval');
  });

  it('keeps the clock between events for a live view: the same time as folding them all, and reading it changes nothing', () => {
    const ev = runEventBuilder();
    const events = [
      ev('RunStarted', {}, 1, 0),
      ev('InputRequested', { reason: 'human.input', step_id: 'ask' }, 1, 1 * S),
      ev('InputReceived', { input: 'yes', step_id: 'ask' }, 1, 1 * S + 5 * 60 * S),
      ev('ApprovalRequested', { deadline_at: null, plan_version: 2 }, 2, 2 * S + 5 * 60 * S),
      ev('ApprovalGranted', { by: 'approver' }, 2, 2 * S + 65 * 60 * S),
      ev('RunTerminated', { status: 'completed', reason: 'success' }, 2, 3 * S + 65 * 60 * S),
    ];
    const clock = startRunClock();
    events.forEach((e, i) => {
      advanceRunClock(clock, e);
      const now = Date.parse(e.timestamp) + 700;
      expect([i, runTimeAt(clock, now)]).toEqual([i, runTimeOf(events.slice(0, i + 1), now)]);
      // Read twice at once: the first reading added nothing to the clock.
      expect(runTimeAt(clock, now)).toEqual(runTimeAt(clock, now));
    });
    expect(runTimeText(runTimeAt(clock, 100 * H))).toBe(
      '3.0 s running · waited 1 h for approval, 5 min for input',
    );
  });

  it('says a duration in the unit a person reads', () => {
    expect(
      [120, 2100, 59_960, 303 * S, 60 * 60 * S, 3 * H + 5 * 60 * S + 7 * S, 52 * H].map(humanDuration),
    ).toEqual(['120 ms', '2.1 s', '59.9 s', '5 min 3 s', '1 h', '3 h 5 min', '2 d 4 h']);
  });
});

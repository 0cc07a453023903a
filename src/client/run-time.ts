/**
 * How long a run ran and how long it waited for a person, from its events: a run approved after 3 h
 * that then did 2 s of work "took" 3 h from start to end, which reads as slow work. The run's clock is
 * split as its events move it — waiting for the plan's approval (ApprovalRequested → its decision),
 * waiting for an answer (InputRequested → InputReceived), running (from its start — RunStarted, its
 * first step or its approval — to its end, a retry's RunResumed starting it again), and neither
 * (planning before it starts, ended). Pure: the dashboard and `edgeplan show` say the same words.
 * @example
 * runTimeText(runTimeOf(events, Date.now())) // '2.1 s running · waited 3 h 5 min for approval'
 */
import type { RunEvent } from './types';

export type RunTime = {
  /** Time the run was going and not waiting for a person, in ms. */
  running_ms: number;
  /** Time it waited for a person, in ms: for a plan's approval (revisions' too), for an answer. */
  waited_ms: { approval: number; input: number };
  /** It has started (a run still planning, or rejected before it ran, has not). */
  started: boolean;
};

/** What the run's clock counts now: nothing before it starts and after it ends. */
export type RunClockMode = 'before' | 'running' | 'approval' | 'input' | 'ended';

/** Where an event moves the run's clock; undefined: it stays where it is. */
function next(mode: RunClockMode, e: RunEvent): RunClockMode | undefined {
  switch (e.event_type) {
    case 'RunStarted':
    case 'StepStreamed':
    case 'StepScheduled':
      return mode === 'before' ? 'running' : undefined;
    case 'ApprovalRequested':
      return 'approval';
    case 'InputRequested':
      return 'input';
    case 'ApprovalGranted':
      return 'running';
    case 'InputReceived':
      // An answer ends the wait; new information sent while the run runs changes nothing here.
      return mode === 'input' ? 'running' : undefined;
    case 'ApprovalRejected':
      // A rejected revision ends the run (its RunTerminated follows); a first plan's never started it.
      return 'ended';
    case 'RunTerminated':
      return 'ended';
    case 'RunResumed':
      return 'running';
    default:
      return undefined;
  }
}

/**
 * A run's clock as its events move it, kept between events so a live view (`edgeplan watch`) adds
 * each event as it arrives instead of folding them all again every frame: what it has counted, what
 * the run is doing now, and since when.
 */
export type RunClock = { time: RunTime; mode: RunClockMode; since: number | null };

/** The clock of a run no event has moved yet. */
export function startRunClock(): RunClock {
  return {
    time: { running_ms: 0, waited_ms: { approval: 0, input: 0 }, started: false },
    mode: 'before',
    since: null,
  };
}

/** Adds what the run did until `until` (epoch ms), by what it was doing, to `time`. */
function spend(time: RunTime, mode: RunClockMode, since: number | null, until: number): void {
  if (since === null) return;
  const ms = Math.max(0, until - since);
  if (mode === 'running') time.running_ms += ms;
  else if (mode === 'approval' || mode === 'input') time.waited_ms[mode] += ms;
}

/** Moves the clock by the next event in `seq` order (in place, as the run view's fold does). */
export function advanceRunClock(clock: RunClock, e: RunEvent): void {
  const to = next(clock.mode, e);
  if (to === undefined) return;
  const at = Date.parse(e.timestamp);
  spend(clock.time, clock.mode, clock.since, at);
  clock.mode = to;
  clock.since = at;
  if (to === 'running') clock.time.started = true;
}

/** The run's time as of `now` (epoch ms): a run not ended counted up to it in what it does now. */
export function runTimeAt(clock: RunClock, now: number): RunTime {
  const time = { ...clock.time, waited_ms: { ...clock.time.waited_ms } };
  spend(time, clock.mode, clock.since, now);
  return time;
}

/**
 * The run's time so far, from its events in `seq` order; a run not ended is counted up to `now`
 * (epoch ms) in what it is doing now.
 */
export function runTimeOf(events: readonly RunEvent[], now: number): RunTime {
  const clock = startRunClock();
  for (const e of events) advanceRunClock(clock, e);
  return runTimeAt(clock, now);
}

/** `120 ms`, `2.1 s`, `5 min 3 s`, `3 h 5 min`, `2 d 4 h`: what a person reads at a glance. */
export function humanDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(Math.floor(ms / 100) / 10).toFixed(1)} s`;
  const both = (big: number, bigUnit: string, small: number, smallUnit: string) =>
    small === 0 ? `${big} ${bigUnit}` : `${big} ${bigUnit} ${small} ${smallUnit}`;
  const s = Math.floor(ms / 1000);
  if (s < 3600) return both(Math.floor(s / 60), 'min', s % 60, 's');
  if (s < 86_400) return both(Math.floor(s / 3600), 'h', Math.floor((s % 3600) / 60), 'min');
  return both(Math.floor(s / 86_400), 'd', Math.floor((s % 86_400) / 3600), 'h');
}

/**
 * The run's time in words: how long it ran, then how long it waited for a person, by what for —
 * `2.1 s running · waited 3 h for approval, 5 min for input`; just the running time when it never
 * waited; '' before anything of it started or waited.
 */
export function runTimeText(t: RunTime): string {
  const waits = [
    t.waited_ms.approval > 0 ? `${humanDuration(t.waited_ms.approval)} for approval` : '',
    t.waited_ms.input > 0 ? `${humanDuration(t.waited_ms.input)} for input` : '',
  ].filter(Boolean);
  if (!t.started && waits.length === 0) return '';
  const ran = `${humanDuration(t.running_ms)} running`;
  return waits.length === 0 ? ran : `${ran} · waited ${waits.join(', ')}`;
}

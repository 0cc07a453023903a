/**
 * Run events for the view and CLI tests, numbered in order as a run records them: `ev(type, payload,
 * plan_version, ms)` with `ms` after 10:00 on 2026-11-29.
 */
import type { RunEvent } from '../../src/client';

/** The time `ms` after 10:00 on 2026-11-29, as an event's timestamp. */
export const eventTime = (ms: number) => new Date(Date.UTC(2026, 10, 29, 10, 0, 0, ms)).toISOString();

/** A fresh numbering: the first event it makes is seq 1. */
export function runEventBuilder() {
  let seq = 0;
  return function ev(event_type: string, payload: unknown, version: number | null = 1, ms = 0): RunEvent {
    seq += 1;
    return {
      event_id: `e${seq}`,
      seq,
      event_type,
      timestamp: eventTime(ms),
      actor: 'run:run_1',
      references: { plan_id: 'p', plan_version: version },
      payload,
    } as RunEvent;
  };
}

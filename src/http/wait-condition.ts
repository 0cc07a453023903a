/**
 * What `GET /v1/runs/:id/wait` (the MCP tool `wait_for_run`) waits for, as a decision on the run's
 * status and last seq — kept apart from the waiting, so it is checked in plain Node.
 */
import { TERMINAL_RUN_STATUSES, type RunStatus } from '../plan/model';

/** `terminal`: the run ended; `waiting`: it waits for a person (or ended); `any_change`: a new event. */
export const WAIT_UNTIL = ['terminal', 'waiting', 'any_change'] as const;
export type WaitUntil = (typeof WAIT_UNTIL)[number];

/** The statuses in which a run waits for someone: an approval decision, or an answer. */
export const WAITING_RUN_STATUSES: ReadonlySet<RunStatus> = new Set(['awaiting_approval', 'awaiting_input']);

/**
 * The longest wait a request may ask for, in seconds. Cloudflare sets a Worker's HTTP request no
 * wall-clock limit while its client stays connected, and counts CPU time only while code runs (30 s
 * by default), not while it waits (developers.cloudflare.com/workers/platform/limits); so the bound
 * is the caller's: the MCP SDK's client gives up on a request after 60 s
 * (DEFAULT_REQUEST_TIMEOUT_MSEC), and an answer must come before that.
 */
export const MAX_WAIT_S = 50;
/** The wait when none is asked for. */
export const DEFAULT_WAIT_S = 25;

/** What a wait looks at: the run's status and the seq of its last event. */
export type RunProgress = { status: RunStatus; last_seq: number };

/**
 * Whether the run is where `until` waits for it to be. An ended run is every wait's end (it will not
 * wait, nor change, again). `after`: the seq the wait counts new events from (`any_change`).
 * @example reached('waiting', { status: 'awaiting_input', last_seq: 9 }, 9); // true
 */
export function reached(until: WaitUntil, run: RunProgress, after: number): boolean {
  if (TERMINAL_RUN_STATUSES.has(run.status)) return true;
  if (until === 'waiting') return WAITING_RUN_STATUSES.has(run.status);
  if (until === 'any_change') return run.last_seq > after;
  return false;
}

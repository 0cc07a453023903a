/**
 * A run's past as its page reads it: `GET /v1/runs/:id/events` a page of 1,000 at a time, each page
 * folded at once, before the page follows the run live from the last seq read (use-run.ts). Over the
 * WebSocket the past came one message an event — 300,000 of them for a 100,000-step run, its 16 MiB
 * backlog shares a socket each — where a page is one request and one parse.
 * @example
 * const last = await readPast(runId, 0, signal, (e) => applyEvent(view, e));
 * for await (const e of api().watch(runId, { after: last, signal })) applyEvent(view, e);
 */
import type { RunEvent } from '../client';
import { api } from './api';

/** The most events a page of `/events` holds. */
export const PAST_PAGE = 1000;

/**
 * Reads the events after `after` up to the run's last, in pages, handing each to `take` in seq order;
 * resolves to the last seq read (`after` when there was none). Stops, unresolved errors aside, when
 * `signal` aborts. A page the API refuses throws: the caller follows the run live instead, as before.
 */
export async function readPast(
  runId: string,
  after: number,
  signal: AbortSignal,
  take: (e: RunEvent) => void,
): Promise<number> {
  let last = after;
  for (;;) {
    const page = await api().eventsPage(runId, { after: last, limit: PAST_PAGE });
    if (signal.aborted) return last;
    for (const e of page.events) {
      if (e.seq <= last) continue;
      take(e);
      last = e.seq;
    }
    if (!page.has_more || page.events.length === 0) return last;
    // A page a task: the page stays responsive (scrolls, switches tabs) while a long past is read.
    await new Promise((r) => setTimeout(r, 0));
  }
}

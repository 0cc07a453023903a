/**
 * How the name on a decision or an answer was established (`approver_via`, `answered_by_via`): what an
 * auditor needs to tell "ada@example.com, verified by Cloudflare Access" from "Ada, typed by whoever
 * held the approval link". The Worker knows how the caller authenticated; the run's object knows
 * whether the approval link's token was spent — this decides from both, and parses what crosses the
 * RPC between them.
 */
import { z } from 'zod';
import type { NameSource } from '../engine/events';

/** How auth established the caller (as `GET /v1/me` says it): the Worker hands this to the run. */
export type CallerVia = Exclude<NameSource, 'link'>;

const CallerViaSchema = z.enum(['access', 'token', 'anonymous']);

/**
 * The caller's `via` as it arrives over RPC: undefined from a Worker on a release before it (which
 * sends none) or for anything else, so nothing unchecked is recorded as how a name was established.
 * @example callerViaOf('token') // 'token'
 */
export function callerViaOf(value: unknown): CallerVia | undefined {
  const r = CallerViaSchema.safeParse(value);
  return r.success ? r.data : undefined;
}

/**
 * How a name was established: the caller's own authentication, except that a caller with none
 * (Access bypassed, no API token) who presented the approval link's token typed it on the link. An
 * Access identity stays `access` on the link (Access signed them in there too), and an API token
 * holder stays `token`: the name is as they stated it, whatever else they presented.
 * @example
 * nameSourceOf('anonymous', true) // 'link'
 * nameSourceOf('access', true) // 'access'
 */
export function nameSourceOf(caller: CallerVia, viaLink: boolean): NameSource {
  return caller === 'anonymous' && viaLink ? 'link' : caller;
}

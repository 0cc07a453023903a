/**
 * With Cloudflare Access, the approver of a decision is who the caller is, not a name they type: the
 * verified identity goes in the decision's `approver` (recorded on ApprovalGranted / ApprovalRejected),
 * and a body naming someone else is refused rather than silently rewritten.
 */
import type { Caller } from '../types';

/**
 * The approval body to hand the run: as sent for a caller without an Access identity; with one, its
 * `approver` set to that identity — or the message refusing a body that names another.
 * @example
 * signedInApprover({ decision: 'approve' }, { via: 'access', identity: 'ada@example.com' })
 * // { ok: true, body: { decision: 'approve', approver: 'ada@example.com' } }
 */
export function signedInApprover(
  body: unknown,
  caller: Caller,
): { ok: true; body: unknown } | { ok: false; message: string } {
  // Not an object: the run's schema refuses it with its own words.
  if (caller.via !== 'access' || typeof body !== 'object' || body === null || Array.isArray(body))
    return { ok: true, body };
  const given = (body as { approver?: unknown }).approver;
  const named = typeof given === 'string' ? given.trim() : given;
  if (named !== undefined && named !== null && named !== '' && named !== caller.identity)
    return {
      ok: false,
      message:
        `You are signed in through Cloudflare Access as ${caller.identity}, so the decision is recorded as ` +
        `theirs: leave "approver" out or send "${caller.identity}" (got ${JSON.stringify(given)})`,
    };
  return { ok: true, body: { ...body, approver: caller.identity } };
}

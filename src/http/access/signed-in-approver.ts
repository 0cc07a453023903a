/**
 * With Cloudflare Access, who decides or answers is who the caller is, not a name they type: the
 * verified identity goes in the decision's `approver` (recorded on ApprovalGranted / ApprovalRejected)
 * and in the answer's `answered_by` (InputReceived), and a body naming someone else is refused rather
 * than silently rewritten.
 */
import type { Caller } from '../types';

/**
 * The name to record for what a caller sends: the Access identity when they have one — or the message
 * refusing a name `given` in the body that is another — else `given` as it is (checked by its schema).
 * `what` names what is recorded, for the message: "decision", "answer".
 * @example
 * signedInName('Ada', { via: 'access', identity: 'ada@example.com' }, 'answer')
 * // { ok: false, message: 'You are signed in through Cloudflare Access as ada@example.com, …' }
 */
export function signedInName(
  given: unknown,
  caller: Caller,
  what: string,
): { ok: true; name: unknown } | { ok: false; message: string } {
  if (caller.via !== 'access') return { ok: true, name: given };
  const named = typeof given === 'string' ? given.trim() : given;
  if (named !== undefined && named !== null && named !== '' && named !== caller.identity)
    return {
      ok: false,
      message:
        `You are signed in through Cloudflare Access as ${caller.identity}, so the ${what} is recorded as ` +
        `theirs: leave "approver" out or send "${caller.identity}" (got ${JSON.stringify(given)})`,
    };
  return { ok: true, name: caller.identity };
}

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
  const signed = signedInName((body as { approver?: unknown }).approver, caller, 'decision');
  return signed.ok ? { ok: true, body: { ...body, approver: signed.name } } : signed;
}

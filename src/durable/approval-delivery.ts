/**
 * Announcing a run's approval: its link minted (once: retries send the same one) and, when
 * `approval.webhook_url` is set, the signed webhook delivered, with retries (`approval/webhook-schedule.ts`).
 */
import { mintApprovalToken } from '../approval/tokens';
import { sendApprovalWebhook } from '../approval/webhook';
import { nextWebhookAttempt } from '../approval/webhook-schedule';
import { withIssued } from '../approval/issued-links';
import type { MachineInput } from '../engine/machine';
import type { RunState } from '../engine/state';
import { checkHost, parseAllowlist } from '../executor/tools/address-policy';
import { changesSinceApproved } from './pending-approval';
import { LINKS_KEY, readIssuedLinks, readLinkRecord, TOKEN_KEY, UNREADABLE_LINK } from './approval-link';
import type { SqlStore } from './sql-store';
import { log } from '../log';

/** How long an approval link lives when the run sets no approval timeout. */
const DEFAULT_LINK_TTL_MS = 7 * 24 * 3600 * 1000;

/** A delivery when WEBHOOK_SECRET was unset since the run started: what it says, and what to do. */
const NO_SECRET =
  'invalid_webhook_secret: WEBHOOK_SECRET is not set, so no webhook was sent: set it ("whsec_" followed by ' +
  'base64, `wrangler secret put WEBHOOK_SECRET`); decide this run through the API or the dashboard';

/** One delivery attempt: what to record, and when to try again (null: not again). */
export type ApprovalDelivery = {
  input: Extract<MachineInput, { type: 'webhook_attempted' }> | null;
  /** The approval link, minted on the first attempt and sent again on every retry. */
  link: string;
};

/**
 * Mints the run's approval link (once: retries send the same one) and, when `approval.webhook_url`
 * is set, makes one signed delivery attempt of the webhook. A failure the receiver may get over
 * (network, timeout, 408/429/5xx) gets a next attempt with backoff ({@link nextWebhookAttempt}).
 * `keep` stores a new link with its token's record, before anything is sent: a delivery cut short by
 * a crash may have reached the receiver, and the re-sent one must carry the same link.
 */
export async function deliverApproval(
  state: RunState,
  store: SqlStore,
  env: Env,
  deadlineAt: number | null,
  attempt: number,
  link: string | undefined,
  keep: (link: string) => void = () => undefined,
): Promise<ApprovalDelivery> {
  const now = Date.now();
  const origin = store.getMeta('origin') ?? 'http://localhost:8787';
  const runUrl = `${origin}/v1/runs/${state.run_id}`;
  let stored = link === undefined ? null : readLinkRecord(store, state.run_id);
  // A retry sends the link it minted; one whose record can no longer be read would not work, so a
  // new link is minted for the retry to send instead.
  if (link === undefined || stored === null || stored === UNREADABLE_LINK) {
    const ttl = deadlineAt !== null ? Math.max(1, deadlineAt - now) : DEFAULT_LINK_TTL_MS;
    const { token, record } = await mintApprovalToken(now, ttl);
    link = `${runUrl}/approval?token=${token}`;
    // Both writes in one turn, so one transaction: the record never matches a link the row lacks.
    store.setMeta(TOKEN_KEY, JSON.stringify(record));
    const issued = { hash: record.hash, plan_version: state.plan?.version ?? 1 };
    store.setMeta(LINKS_KEY, JSON.stringify(withIssued(readIssuedLinks(store, state.run_id), issued)));
    keep(link);
    stored = record;
  }
  const url = state.config.approval?.webhook_url;
  if (!url) return { input: null, link };
  const record = (ok: boolean, next: number | null, extra: { status?: number; error?: string }) => ({
    input: { type: 'webhook_attempted' as const, attempt, ok, next_attempt_at: next, ...extra },
    link,
  });
  /** A failed attempt, recorded; logged when it is the first or the last, so the operator learns of it. */
  const failed = (next: number | null, code: string, extra: { status?: number; error: string }) => {
    if (attempt === 1 || next === null) logNotDelivered(state.run_id, attempt, next, code, extra.error);
    return record(false, next, extra);
  };
  const secret = env.WEBHOOK_SECRET;
  // Checked when the run started (src/http/webhook-url-check.ts); the variables may change while it waits.
  if (!secret) return failed(null, 'invalid_webhook_secret', { error: NO_SECRET });
  const decision = checkHost(new URL(url).hostname, parseAllowlist(env.HTTP_ALLOWLIST));
  if (!decision.allowed) {
    return failed(null, decision.code, {
      error: `${decision.code}: webhook_url refused: ${decision.reason}`,
    });
  }
  const expires = stored.expires_at;
  const result = await sendApprovalWebhook({
    url,
    secret,
    // One id for every attempt of this plan version: a receiver deduplicates repeats by it.
    id: `msg_${state.run_id}_v${state.plan?.version ?? 1}`,
    now,
    fetch: (input, init) => fetch(input, init),
    payload: {
      type: 'plan.approval_requested',
      run_id: state.run_id,
      plan: state.plan!,
      plan_version: state.plan?.version ?? 1,
      run_url: runUrl,
      approval_url: link,
      expires_at: new Date(expires).toISOString(),
      default_action: state.config.approval?.default_action ?? 'reject',
      // What a chat or mail bridge says first ("v2 adds 2 steps, changes 1") without calling back.
      ...changesSinceApproved(state, store),
    },
  });
  if (result.ok) return record(true, null, { status: result.status });
  const next = nextWebhookAttempt(
    attempt,
    now,
    { retryable: result.error.retryable, retryAfterMs: result.error.retry_after_ms },
    deadlineAt,
  );
  return failed(next, result.error.code, {
    status: result.status,
    error: `${result.error.code}: ${result.error.message}`,
  });
}

/**
 * `approval_webhook_not_delivered`: an approver learns of the run only through its webhook, so a failed
 * delivery is the operator's to see — its first failure (retried or not) and the one after which it is
 * not sent again. The attempts between are in the run's events (`ApprovalWebhookAttempted`).
 */
function logNotDelivered(runId: string, attempt: number, next: number | null, code: string, error: string) {
  const then =
    next === null
      ? `it is not sent again: decide the run through the API (POST /v1/runs/${runId}/approval) or the dashboard`
      : `it is sent again at ${new Date(next).toISOString()}, with backoff for about three days or until the approval's deadline`;
  log(
    'approval_webhook_not_delivered',
    `run ${runId}: approval webhook attempt ${attempt} failed (${error}); ${then}`,
    {
      run_id: runId,
      attempt,
      code,
    },
  );
}

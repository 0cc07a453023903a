/**
 * The run's single-use approval link as its object keeps it: the token's record (only its hash is
 * stored), the list of links sent, and checking and spending a presented token — with what a link
 * a newer one replaced, or a record that cannot be read, answers instead.
 */
import type { ErrorCode } from '../error-codes';
import { ApprovalTokenRecordSchema, checkApprovalToken, type ApprovalTokenRecord } from '../approval/tokens';
import { issuedLinkOf, IssuedLinksSchema, type IssuedLink } from '../approval/issued-links';
import { nothingToApprove as nothingToApproveText } from '../engine/status-refusals';
import type { RunState } from '../engine/state';
import type { SqlStore } from './sql-store';
import { log } from '../log';

export const TOKEN_KEY = 'approval_token';
/**
 * The links sent, newest last (issued-links.ts): a key of its own, so a release before it — which
 * reads and writes only {@link TOKEN_KEY} — neither refuses nor rewrites it (docs/upgrading.md).
 */
export const LINKS_KEY = 'approval_links';

export type ApprovalRefusal = { code: ErrorCode; message: string; details?: unknown };

/** A link's token that checked out: the record it matched (its hash is what spends it). */
type CheckedLink = { ok: true; record: ApprovalTokenRecord };

/** What a run without a link is checked against: no token matches it. */
const NO_LINK: ApprovalTokenRecord = { hash: '', expires_at: 0, used: true };

/** A link record that is there but does not fit {@link ApprovalTokenRecordSchema}. */
export const UNREADABLE_LINK = 'unreadable';

/**
 * The run's approval link record: null when it has none, {@link UNREADABLE_LINK} (logged, with why)
 * when its row is not JSON or does not fit — another release or a hand wrote it.
 */
export function readLinkRecord(
  store: SqlStore,
  runId: string,
): ApprovalTokenRecord | null | typeof UNREADABLE_LINK {
  const raw = store.getMeta(TOKEN_KEY);
  if (raw === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    log('approval_link_unreadable', `run ${runId}: its approval link record is not JSON`, {
      run_id: runId,
      error: err,
    });
    return UNREADABLE_LINK;
  }
  const r = ApprovalTokenRecordSchema.safeParse(value);
  if (r.success) return r.data;
  log('approval_link_unreadable', `run ${runId}: its approval link record does not fit`, {
    run_id: runId,
    error: r.error,
  });
  return UNREADABLE_LINK;
}

/**
 * The links the run sent (none for a run from before the list, or whose row does not fit: logged, and
 * its earlier links answer as tokens never issued do, as they did before the list).
 */
export function readIssuedLinks(store: SqlStore, runId: string): IssuedLink[] {
  const raw = store.getMeta(LINKS_KEY);
  if (raw === null) return [];
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    log('approval_links_unreadable', `run ${runId}: its list of approval links sent is not JSON`, {
      run_id: runId,
      error: err,
    });
    return [];
  }
  const r = IssuedLinksSchema.safeParse(value);
  if (r.success) return r.data;
  log('approval_links_unreadable', `run ${runId}: its list of approval links sent does not fit`, {
    run_id: runId,
    error: r.error,
  });
  return [];
}

/**
 * The refusal of a link a newer one replaced (`earlier` asked about an older version, or the same
 * one, which a link minted again replaced): what it asked about, what the run waits for now, and
 * where the new link went. Only the holder of a link the run sent learns this; a token never sent
 * is refused `forbidden` and learns nothing.
 */
function supersededLink(state: RunState, earlier: IssuedLink): ApprovalRefusal {
  const asked = earlier.plan_version;
  const awaiting = state.status === 'awaiting_approval' && state.plan ? state.plan.version : null;
  const sentTo = state.config.approval?.webhook_url
    ? 'a new link was sent for it with the approval webhook'
    : 'a new link was made for it';
  const now =
    awaiting === null
      ? nothingToApproveText(state)
      : `Version ${awaiting} ${awaiting === asked ? 'still awaits' : 'now awaits'} approval, and ${sentTo}: ` +
        "open that link, or decide on the run's page in the dashboard.";
  return {
    code: 'approval_link_superseded',
    message: `This approval link asked about plan version ${asked} of run ${state.run_id}, and a newer link replaced it. ${now}`,
    details: {
      asked_version: asked,
      awaited_version: awaiting,
      status: state.status,
    },
  };
}

/**
 * The refusal of a link whose record cannot be read: `forbidden`, as a token that does not fit, since
 * no token can be checked against it — but saying so, so that the link's holder knows what to do
 * instead of trying again. It tells a caller without the token only that the run has such a record.
 */
const unreadableLink = (runId: string): ApprovalRefusal => ({
  code: 'forbidden',
  message:
    `The approval link of run ${runId} cannot be checked: its stored record is unreadable (written by ` +
    `another release). Decide with an API token instead (POST /v1/runs/${runId}/approval).`,
});

/**
 * Checks a capability token without spending it. A run without a link answers as a wrong token
 * does, so a caller without the token cannot tell the two apart.
 */
export async function checkApprovalLink(
  state: RunState,
  store: SqlStore,
  presented: string,
): Promise<CheckedLink | { ok: false; refusal: ApprovalRefusal }> {
  const runId = state.run_id;
  const record = readLinkRecord(store, runId) ?? NO_LINK;
  if (record === UNREADABLE_LINK) return { ok: false, refusal: unreadableLink(runId) };
  const check = await checkApprovalToken(record, presented, Date.now());
  if (!check.ok && check.code === 'invalid_token') {
    // A link the run sent before the current one: its holder is told what replaced it.
    const earlier = await issuedLinkOf(readIssuedLinks(store, runId), presented);
    if (earlier !== null && earlier.hash !== record.hash)
      return { ok: false, refusal: supersededLink(state, earlier) };
  }
  if (!check.ok) {
    const code = check.code === 'invalid_token' ? 'forbidden' : 'gone';
    // A link lives until the approval deadline: once it passed, its holder is told what the deadline's
    // default_action decided, not only that the link expired.
    const decided = check.code === 'token_expired' && state.status !== 'awaiting_approval';
    const message = decided ? `${check.message}. ${nothingToApproveText(state)}` : check.message;
    return { ok: false, refusal: { code, message } };
  }
  return { ok: true, record };
}

/**
 * Spends a checked link once its decision is accepted (single use). Synchronous, so of two decisions
 * checked at once only the first spends it; a link replaced meanwhile (a new version to approve)
 * is not spent by the old token.
 */
export function spendApprovalToken(
  store: SqlStore,
  runId: string,
  link: CheckedLink,
): ApprovalRefusal | null {
  const record = readLinkRecord(store, runId) ?? NO_LINK;
  if (record === UNREADABLE_LINK) return unreadableLink(runId);
  if (record.used || record.hash !== link.record.hash) {
    return { code: 'gone', message: 'This approval link has already been used' };
  }
  store.setMeta(TOKEN_KEY, JSON.stringify({ ...record, used: true }));
  return null;
}

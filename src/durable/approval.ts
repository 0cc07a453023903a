/**
 * Plan approval for a run's object: the single-use capability link (a token whose hash is kept in the
 * run's storage), the signed webhook that announces it, and turning an approver's edit into a
 * validated new plan version.
 */
import type { ErrorCode } from '../error-codes';
import { applyEdits, parseApprovalDecision, type ApprovalDecision } from '../approval/decision';
import { nameSourceOf, type CallerVia } from '../approval/name-source';
import {
  ApprovalTokenRecordSchema,
  checkApprovalToken,
  mintApprovalToken,
  type ApprovalTokenRecord,
} from '../approval/tokens';
import { sendApprovalWebhook } from '../approval/webhook';
import { issuedLinkOf, IssuedLinksSchema, withIssued, type IssuedLink } from '../approval/issued-links';
import type { MachineInput } from '../engine/machine';
import {
  notAwaitingDecision,
  nothingToApprove as nothingToApproveText,
  otherVersionAwaited,
} from '../engine/status-refusals';
import type { RunState } from '../engine/state';
import type { ToolRegistry } from '../executor/registry';
import { checkHost, parseAllowlist } from '../executor/tools/address-policy';
import type { Plan } from '../plan/model';
import { validatePlan, type Finding } from '../plan/validate';
import { validationLimits } from '../plan/config';
import { keptSteps, pendingApproval, type KeptStep, type PendingApproval } from './pending-approval';
import type { SqlStore } from './sql-store';
import { log } from '../log';

/** How long an approval link lives when the run sets no approval timeout. */
const DEFAULT_LINK_TTL_MS = 7 * 24 * 3600 * 1000;
const TOKEN_KEY = 'approval_token';
/**
 * The links sent, newest last (issued-links.ts): a key of its own, so a release before it — which
 * reads and writes only {@link TOKEN_KEY} — neither refuses nor rewrites it (docs/upgrading.md).
 */
const LINKS_KEY = 'approval_links';

export type ApprovalRefusal = { code: ErrorCode; message: string; details?: unknown };

/** The first retry of a failed webhook delivery; each next one waits twice as long, up to the cap. */
const WEBHOOK_RETRY_MS = 1_000;
const WEBHOOK_RETRY_CAP_MS = 10 * 60_000;
/** A delivery when WEBHOOK_SECRET was unset since the run started: what it says, and what to do. */
const NO_SECRET =
  'invalid_webhook_secret: WEBHOOK_SECRET is not set, so no webhook was sent: set it ("whsec_" followed by ' +
  'base64, `wrangler secret put WEBHOOK_SECRET`); decide this run through the API or the dashboard';

/** Deliveries tried when the approval has no deadline to stop at. */
const WEBHOOK_MAX_ATTEMPTS = 12;

/** One delivery attempt: what to record, and when to try again (null: not again). */
export type ApprovalDelivery = {
  input: Extract<MachineInput, { type: 'webhook_attempted' }> | null;
  /** The approval link, minted on the first attempt and sent again on every retry. */
  link: string;
};

/**
 * Mints the run's approval link (once: retries send the same one) and, when `approval.webhook_url`
 * is set, makes one signed delivery attempt of the webhook. A failure the receiver may get over
 * (network, timeout, 408/429/5xx) gets a next attempt with backoff, until the approval deadline.
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
  const secret = env.WEBHOOK_SECRET;
  // Checked when the run started (src/http/webhook-url-check.ts); the variables may change while it waits.
  if (!secret) return record(false, null, { error: NO_SECRET });
  const decision = checkHost(new URL(url).hostname, parseAllowlist(env.HTTP_ALLOWLIST));
  if (!decision.allowed) {
    return record(false, null, { error: `${decision.code}: webhook_url refused: ${decision.reason}` });
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
      // What a chat or mail bridge says first ("v2 adds 2 steps, changes 1") without calling back.
      ...changesSinceApproved(state, store),
    },
  });
  if (result.ok) return record(true, null, { status: result.status });
  const wait = Math.min(WEBHOOK_RETRY_MS * 2 ** (attempt - 1), WEBHOOK_RETRY_CAP_MS);
  const next =
    result.error.retryable && (deadlineAt !== null ? now + wait < deadlineAt : attempt < WEBHOOK_MAX_ATTEMPTS)
      ? now + wait
      : null;
  return record(false, next, {
    status: result.status,
    error: `${result.error.code}: ${result.error.message}`,
  });
}

/** A link's token that checked out: the record it matched (its hash is what spends it). */
type CheckedLink = { ok: true; record: ApprovalTokenRecord };

/** What a run without a link is checked against: no token matches it. */
const NO_LINK: ApprovalTokenRecord = { hash: '', expires_at: 0, used: true };

/** A link record that is there but does not fit {@link ApprovalTokenRecordSchema}. */
const UNREADABLE_LINK = 'unreadable';

/**
 * The run's approval link record: null when it has none, {@link UNREADABLE_LINK} (logged, with why)
 * when its row is not JSON or does not fit — another release or a hand wrote it.
 */
function readLinkRecord(store: SqlStore, runId: string): ApprovalTokenRecord | null | typeof UNREADABLE_LINK {
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
function readIssuedLinks(store: SqlStore, runId: string): IssuedLink[] {
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
async function checkApprovalLink(
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

/**
 * The plan a `modify` decision asks for — a whole plan or edits to the current one — validated like
 * any plan and numbered as the next version. Findings come back for the approver to fix.
 */
export function modifiedPlan(
  state: RunState,
  decision: ApprovalDecision,
  tools: ToolRegistry,
): { ok: true; plan: Plan } | { ok: false; refusal: ApprovalRefusal } {
  const current = state.plan!;
  let candidate: unknown = decision.plan;
  if (decision.edits) {
    const edited = applyEdits(current, decision.edits);
    if (!edited.ok) return { ok: false, refusal: { code: 'invalid_request', message: edited.message } };
    candidate = edited.plan;
  }
  return validatedVersion(state, candidate, tools);
}

/** Validates a plan for this run and gives it the next version number, keeping the plan's id. */
export function validatedVersion(
  state: RunState,
  candidate: unknown,
  tools: ToolRegistry,
): { ok: true; plan: Plan } | { ok: false; refusal: ApprovalRefusal } {
  const current = state.plan!;
  const result = validatePlan(candidate, {
    tools,
    config: validationLimits(state.config, false),
    clock: { now: () => new Date() },
    ids: { id: () => current.id, uuid: () => crypto.randomUUID() },
    refuseUnknownKeys: true,
  });
  if (!result.valid || !result.plan) {
    const errors: Finding[] = result.errors;
    const first = errors[0]?.message ?? 'invalid plan';
    return {
      ok: false,
      refusal: {
        code: 'invalid_plan',
        message: `The plan has ${errors.length} finding(s): ${first}`,
        details: { errors },
      },
    };
  }
  const plan: Plan = {
    ...result.plan,
    id: current.id,
    goal: result.plan.goal || current.goal,
    strategy: current.strategy,
    version: current.version + 1,
  };
  return { ok: true, plan };
}

/**
 * The machine input for an approver's decision. With `token` (the approval link) the token is
 * checked first, so a caller without it learns nothing — not the run's state, not what its body
 * would do, not the plan's step ids — and costs no validation; it is spent only once the decision is
 * accepted. Then the body, the state and the edit must check out. `caller`: how the Worker
 * authenticated the request, for how the approver's name was established (`approver_via`).
 */
export async function approvalInput(
  state: RunState,
  store: SqlStore,
  tools: ToolRegistry,
  body: unknown,
  token: string | undefined,
  caller?: CallerVia,
  planVersion?: number,
): Promise<{ ok: true; input: MachineInput } | { ok: false; refusal: ApprovalRefusal }> {
  const link = token === undefined ? null : await checkApprovalLink(state, store, token);
  if (link && !link.ok) return link;
  // A link whose run no longer waits (decided through the API, cancelled, timed out) is dead, as its
  // page says: 410 whatever the body, not a 409 about the run's status its holder cannot change.
  if (link && state.status !== 'awaiting_approval') return { ok: false, refusal: nothingToApprove(state) };
  const decision = parseApprovalDecision(body);
  if (!decision.ok) {
    const { message, issues } = decision;
    return { ok: false, refusal: { code: 'invalid_request', message, details: { issues } } };
  }
  if (state.status !== 'awaiting_approval') return { ok: false, refusal: notAwaitingDecision(state) };
  // Before the link is spent: a holder who saw an older version keeps a link to look at the new one.
  // Handed beside the body by this release's Worker; in it by an older one.
  const decided = planVersion ?? decision.value.plan_version ?? undefined;
  const stale = otherVersionAwaited(state, decided);
  if (stale) return { ok: false, refusal: stale };
  let plan: Plan | undefined;
  if (decision.value.decision === 'modify') {
    const r = modifiedPlan(state, decision.value, tools);
    if (!r.ok) return r;
    plan = r.plan;
  }
  if (link) {
    const refusal = spendApprovalToken(store, state.run_id, link);
    if (refusal) return { ok: false, refusal };
  }
  const { decision: verdict, comment, approver } = decision.value;
  // How the name was established — without a name, how the decision came (the link, a token);
  // unsaid when the Worker (a release before it) did not say who called.
  const via = caller === undefined ? {} : { approver_via: nameSourceOf(caller, link !== null) };
  return {
    ok: true,
    input: {
      type: 'approval',
      decision: verdict,
      plan,
      comment: comment ?? undefined,
      ...(approver ? { approver, ...via } : via),
      ...(decided === undefined ? {} : { plan_version: decided }),
    },
  };
}

/** The approval webhook's and link page's account of what changed since the last approved version. */
type ChangesSinceApproved = Pick<PendingApproval, 'last_approved_version' | 'changes'>;

function changesSinceApproved(state: RunState, store: SqlStore): ChangesSinceApproved {
  const p = pendingApproval(state, store);
  return { last_approved_version: p?.last_approved_version ?? null, changes: p?.changes ?? null };
}

/** What the approval link's page shows: the plan to decide on, while the link is good. */
export type ApprovalView = {
  run_id: string;
  goal: string;
  status: RunState['status'];
  plan: Plan;
  /** Epoch ms when the link stops working. */
  expires_at: number;
  /** Steps the decision does not run: done, skipped or running under an earlier version. */
  kept: Record<string, KeptStep>;
} & ChangesSinceApproved;

/**
 * The plan behind a link, for its page: checked like a decision (a wrong token learns nothing, a used
 * or expired one is `gone`), and spending nothing — the page only shows it.
 */
export async function approvalView(
  state: RunState,
  store: SqlStore,
  token: string,
): Promise<{ ok: true; view: ApprovalView } | { ok: false; refusal: ApprovalRefusal }> {
  const link = await checkApprovalLink(state, store, token);
  if (!link.ok) return link;
  if (state.status !== 'awaiting_approval' || !state.plan)
    return { ok: false, refusal: nothingToApprove(state) };
  const expires_at = link.record.expires_at;
  return {
    ok: true,
    view: {
      run_id: state.run_id,
      goal: state.goal,
      status: state.status,
      plan: state.plan,
      expires_at,
      kept: keptSteps(state),
      ...changesSinceApproved(state, store),
    },
  };
}

/** Why a good link no longer works: its run has stopped waiting for a decision (and what decided it). */
function nothingToApprove(state: RunState): ApprovalRefusal {
  return { code: 'gone', message: nothingToApproveText(state) };
}

/** The machine input that rolls the plan back to `version` (as a new version with its content). */
export function rollbackInput(
  state: RunState,
  store: SqlStore,
  tools: ToolRegistry,
  version: number,
): { ok: true; input: Extract<MachineInput, { type: 'revise' }> } | { ok: false; refusal: ApprovalRefusal } {
  const old = store.getPlan(version);
  if (!old)
    return {
      ok: false,
      refusal: { code: 'not_found', message: `Run ${state.run_id} has no plan version ${version}` },
    };
  const r = validatedVersion(state, old, tools);
  if (!r.ok) return r;
  return {
    ok: true,
    input: { type: 'revise', plan: r.plan, reason: `rollback to version ${version}`, kind: 'rollback' },
  };
}

/**
 * The approval a run waits for, as every place an approver decides shows it (`GET /v1/runs/:id`, the
 * approval webhook, the approval link's page): which version, until when, and — for a version after
 * an approved one (`approval.revisions: "ask"`) — what it changes since the last approved version and
 * why. Read from the run's own rows: the last `ApprovalGranted` names the approved version, its plan
 * row is kept, and the `PlanUpdated` / `RevisionRequested` events since then say why.
 */
import type { RunState } from '../engine/state';
import { approvalChanges, revisionCauses, type ApprovalChanges } from '../plan/approval-changes';
import { parsePlanRow } from './row-schemas';
import type { SqlStore } from './sql-store';

export type PendingApproval = {
  /** The plan version awaiting the decision. */
  plan_version: number;
  /** ISO-8601: when `approval.default_action` applies; null for never. */
  deadline_at: string | null;
  /** What happens at `deadline_at` if nobody decides first: the run's `approval.default_action`. */
  default_action: 'approve' | 'reject';
  /** The last version an approval granted; null while none was (the run's first plan). */
  last_approved_version: number | null;
  /** What `plan_version` changes since `last_approved_version`; null when that is null. */
  changes: ApprovalChanges | null;
};

/**
 * What the run waits for an approver to decide, or null when it waits for none. `upTo`: as of that
 * event (a replayed state's).
 * @example
 * const p = pendingApproval(state, store);
 * p?.changes?.summary // 'v2 adds 1 step and changes 1 since v1 was approved'
 */
export function pendingApproval(state: RunState, store: SqlStore, upTo?: number): PendingApproval | null {
  const asked = state.approval;
  if (state.status !== 'awaiting_approval' || asked?.decision !== 'pending' || !state.plan) return null;
  const plan_version = state.plan.version;
  const deadline_at = asked.deadline_at === null ? null : new Date(asked.deadline_at).toISOString();
  const granted = store.events.lastOfType('ApprovalGranted', upTo);
  // Granted events name the version they approved (the envelope's plan_version).
  const since = granted?.references.plan_version ?? null;
  const default_action = state.config.approval?.default_action ?? 'reject';
  const none = { plan_version, deadline_at, default_action, last_approved_version: since, changes: null };
  if (!granted || since === null || since >= plan_version) return none;
  const stored = store.getPlan(since);
  if (stored === null) return none;
  const versions = store.events.ofTypeAfter('PlanUpdated', granted.seq, upTo).map((e) => ({
    seq: e.seq,
    plan_version: e.payload.plan.version,
    kind: e.payload.kind,
    reason: e.payload.reason,
  }));
  const requests = store.events
    .ofTypeAfter('RevisionRequested', granted.seq, upTo)
    .filter((e) => e.payload.deferred !== true)
    .map((e) => ({ seq: e.seq, trigger: e.payload.trigger, step_id: e.payload.step_id }));
  const changes = approvalChanges(parsePlanRow(stored), state.plan, revisionCauses(versions, requests));
  return { ...none, changes };
}

/** What a step of the plan awaiting approval is when the approval will not run it. */
export type KeptStep = 'done' | 'skipped' | 'running';

/**
 * The steps of the plan awaiting approval that a decision does not run: a revision keeps the ones
 * done or skipped under an earlier version, and those still running under its approval. The
 * approval link's page sets them apart from the steps to approve, as the run page does.
 * @example keptSteps(state) // { fetch: 'done' }
 */
export function keptSteps(state: RunState): Record<string, KeptStep> {
  const kept: Record<string, KeptStep> = {};
  for (const [id, rt] of state.steps) {
    if (rt.status === 'completed') kept[id] = 'done';
    else if (rt.status === 'skipped') kept[id] = 'skipped';
    else if (rt.status === 'running') kept[id] = 'running';
  }
  return kept;
}

/** The approval webhook's and link page's account of what changed since the last approved version. */
export type ChangesSinceApproved = Pick<PendingApproval, 'last_approved_version' | 'changes'>;

export function changesSinceApproved(state: RunState, store: SqlStore): ChangesSinceApproved {
  const p = pendingApproval(state, store);
  return { last_approved_version: p?.last_approved_version ?? null, changes: p?.changes ?? null };
}

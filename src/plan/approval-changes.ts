/**
 * What a plan version awaiting approval changes since the last version the run's approver approved
 * (`approval.revisions: "ask"`): the steps it adds, changes (which fields, which parameters, which
 * dependencies) and removes, and why the planner wrote the versions between. Pure: the run's object
 * feeds it two stored plans and the reasons it recorded; the API, the approval webhook, the approval
 * link's page, the dashboard and the CLI all show this one summary.
 */
import { deepEqual, diffPlans, type FieldChange } from './diff';
import type { Plan } from './model';

/** Why a version after the approved one was written: its `PlanUpdated`, and the request that led to it. */
export type RevisionCause = {
  plan_version: number;
  /** `revision`, `turn`, `rollback`, `approval_edit` (PlanUpdated.kind). */
  kind: string;
  /** The version's reason: the failure that triggered it, the `POST /replan` reason, the turn. */
  reason: string;
  /** The RevisionRequested trigger (`step_failure`, `user_request`, `next_turn`, …); null when none asked. */
  trigger: string | null;
  /** The step whose failure or result triggered it, if one did. */
  step_id: string | null;
};

/** A step the new version adds: enough to read it without the plan. */
export type AddedStep = { step_id: string; action: string; description: string; dependencies: string[] };

/** A step the approved version had and the new one does not. */
export type RemovedStep = { step_id: string; action: string; description: string };

/** A step in both versions whose content changed. */
export type ChangedStep = {
  step_id: string;
  /** Its action in the new version. */
  action: string;
  /** Every changed field, old and new value (absent: null), keys in sorted order. */
  fields: Record<string, FieldChange>;
  /** Top-level parameter keys whose value differs (added, removed or changed), sorted. */
  parameters: string[];
  dependencies_added: string[];
  dependencies_removed: string[];
};

export type ApprovalChanges = {
  /** The last version an approval granted (a person's, or the deadline's default). */
  since_version: number;
  /** The version awaiting approval. */
  plan_version: number;
  /** One line: `v2 adds 2 steps and changes 1 since v1 was approved`. */
  summary: string;
  counts: { added: number; changed: number; removed: number };
  added: AddedStep[];
  changed: ChangedStep[];
  removed: RemovedStep[];
  /** Plan-level fields (goal, success_criteria, strategy) that changed. */
  plan_fields: Record<string, FieldChange>;
  /** The versions written since the approved one, oldest first, with why. */
  revisions: RevisionCause[];
};

/**
 * The changes from the approved plan to the one awaiting approval.
 * @example
 * const c = approvalChanges(v1, v2, [{ plan_version: 2, kind: 'revision', reason: 'step "b" failed: 500', trigger: 'step_failure', step_id: 'b' }]);
 * c.summary // 'v2 adds 1 step and removes 1 since v1 was approved'
 */
export function approvalChanges(approved: Plan, pending: Plan, revisions: RevisionCause[]): ApprovalChanges {
  const d = diffPlans(approved, pending);
  const was = new Map(approved.steps.map((s) => [s.id, s]));
  const now = new Map(pending.steps.map((s) => [s.id, s]));
  const added = d.added.map((s) => ({
    step_id: s.id,
    action: actionOf(s),
    description: s.description ?? '',
    dependencies: s.dependencies ?? [],
  }));
  const removed = d.removed.map((id) => {
    const s = was.get(id);
    return { step_id: id, action: s ? actionOf(s) : '', description: s?.description ?? '' };
  });
  const changed = d.changed.map((c) => {
    const s = now.get(c.step_id);
    return {
      step_id: c.step_id,
      action: s ? actionOf(s) : '',
      fields: c.fields,
      parameters: changedKeys(c.fields.parameters),
      dependencies_added: c.dependencies_added,
      dependencies_removed: c.dependencies_removed,
    };
  });
  const counts = { added: added.length, changed: changed.length, removed: removed.length };
  return {
    since_version: approved.version,
    plan_version: pending.version,
    summary: summaryText(approved.version, pending.version, counts),
    counts,
    added,
    changed,
    removed,
    plan_fields: d.fields,
    revisions,
  };
}

/**
 * `v2 adds 2 steps, changes 1 and removes 1 since v1 was approved` — what a chat message or a
 * terminal line says first.
 * @example summaryText(1, 3, { added: 0, changed: 1, removed: 0 }) // 'v3 changes 1 step since v1 was approved'
 */
export function summaryText(
  since: number,
  version: number,
  c: { added: number; changed: number; removed: number },
): string {
  const parts: string[] = [];
  // The first count names its unit; the rest read on from it ("adds 2 steps, changes 1").
  const say = (verb: string, n: number) => {
    if (n === 0) return;
    parts.push(parts.length === 0 ? `${verb} ${n} step${n === 1 ? '' : 's'}` : `${verb} ${n}`);
  };
  say('adds', c.added);
  say('changes', c.changed);
  say('removes', c.removed);
  const what =
    parts.length === 0
      ? 'changes no step'
      : parts.length === 1
        ? parts[0]!
        : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)!}`;
  return `v${version} ${what} since v${since} was approved`;
}

/** A plan version as its `PlanUpdated` recorded it. */
export type VersionRecord = { seq: number; plan_version: number; kind: string; reason: string };
/** A revision asked for (`RevisionRequested`, not a deferred one). */
export type RequestRecord = { seq: number; trigger: string; step_id?: string | undefined };

/**
 * Each version with the request that led to it: the last revision asked for after the version
 * before it (a rollback or an approver's edit answers none).
 * @example
 * revisionCauses([{ seq: 9, plan_version: 2, kind: 'revision', reason: 'r' }], [{ seq: 7, trigger: 'user_request' }])
 * // [{ plan_version: 2, kind: 'revision', reason: 'r', trigger: 'user_request', step_id: null }]
 */
export function revisionCauses(
  versions: readonly VersionRecord[],
  requests: readonly RequestRecord[],
): RevisionCause[] {
  let after = -Infinity;
  return versions.map((v) => {
    const asked =
      v.kind === 'revision' || v.kind === 'turn'
        ? requests.findLast((r) => r.seq < v.seq && r.seq > after)
        : undefined;
    after = v.seq;
    return {
      plan_version: v.plan_version,
      kind: v.kind,
      reason: v.reason,
      trigger: asked?.trigger ?? null,
      step_id: asked?.step_id ?? null,
    };
  });
}

/** A sub-plan step has no action of its own. */
const actionOf = (s: Plan['steps'][number]): string => s.action || (s.subplan ? 'subplan' : '');

/** The top-level keys of two parameter objects whose values differ. */
function changedKeys(change: FieldChange | undefined): string[] {
  if (!change) return [];
  const from = asRecord(change.from);
  const to = asRecord(change.to);
  const keys = new Set([...Object.keys(from), ...Object.keys(to)]);
  return [...keys].filter((k) => !deepEqual(from[k] ?? null, to[k] ?? null)).sort();
}

function asRecord(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/**
 * The scheduler's decisions about changing course (SPEC §4, seed 000 §2.4): approval deadlines, the
 * revision strategies for a failed step, and the automatic revision triggers. Pure, like decide.ts.
 */
import { draft, type EventDraft } from './events';
import type { DecideContext } from './decide-context';
import type { RunState } from './state';

/** SPEC §4: over the token budget the run stops; near it (90%) a revision is asked for, once. */
export function decideTokenBudget(state: RunState, ctx: DecideContext): EventDraft | null {
  const budget = state.config.token_budget;
  if (!budget) return null;
  const used = state.token_usage.total_tokens;
  if (used > budget) {
    return draft('RunTerminated', {
      status: 'aborted',
      reason: 'token_budget',
      error: {
        code: 'token_budget',
        message: `Token budget exceeded: ${used} of ${budget} tokens used`,
        retryable: false,
      },
    });
  }
  if (used >= 0.9 * budget && !state.budget_warned && revisionAllowed(state, ctx)) {
    return draft('RevisionRequested', {
      trigger: 'token_budget',
      reason: `${used} of ${budget} tokens used: revise the rest of the plan to fit the budget`,
      strategy: state.config.revision_strategy,
    });
  }
  return null;
}

/**
 * Seed 000's revision threshold: when the share of failed steps among those settled passes it (and
 * a new failure has happened since the last version), ask for a revision.
 */
export function decideFailureRate(state: RunState, ctx: DecideContext): EventDraft | null {
  if (state.failures_since_revision === 0 || !revisionAllowed(state, ctx)) return null;
  let failed = 0;
  let settled = 0;
  for (const rt of state.steps.values()) {
    if (rt.status === 'failed') failed += 1;
    if (rt.status === 'failed' || rt.status === 'completed') settled += 1;
  }
  const rate = settled === 0 ? 0 : failed / settled;
  if (settled < 3 || rate <= state.config.revision_threshold) return null;
  return draft('RevisionRequested', {
    trigger: 'failure_rate',
    reason: `${failed} of ${settled} settled steps failed (${Math.round(rate * 100)}% > revision_threshold ${state.config.revision_threshold})`,
    strategy: state.config.revision_strategy,
  });
}

export function revisionAllowed(state: RunState, ctx: Pick<DecideContext, 'canRevise'>): boolean {
  // Not while the plan still streams in: the stream's whole plan would replace the new version.
  return !state.streaming && revisionPossible(state, ctx);
}

/**
 * Whether the run's config and planner allow an automatic revision at all, streaming aside: a trigger
 * that fires while the plan streams in is deferred (`RevisionRequested.deferred`) when this holds.
 */
export function revisionPossible(state: RunState, ctx: Pick<DecideContext, 'canRevise'>): boolean {
  const { allow_revision, max_revisions, revision_strategy } = state.config;
  // Automatic triggers ask the planner for a new version; other strategies answer step failures only.
  const replans = revision_strategy === 'replan_remaining' || revision_strategy === 'insert_recovery';
  return allow_revision && replans && ctx.canRevise && state.revision_count < max_revisions;
}

/**
 * A revision asked for while the plan streamed in, asked now that the plan is whole (and nothing else
 * is being revised); the revision that follows sees everything that arrived meanwhile.
 */
export function decideDeferredRevision(state: RunState, ctx: DecideContext): EventDraft | null {
  const deferred = state.deferred_revision;
  if (!deferred || state.streaming || !revisionAllowed(state, ctx)) return null;
  return draft(
    'RevisionRequested',
    { ...deferred, strategy: state.config.revision_strategy },
    deferred.step_id === undefined ? {} : { step_id: deferred.step_id },
  );
}

/** The approver's deadline: the configured default action applies when it passes. */
export function decideApproval(state: RunState, ctx: DecideContext): EventDraft | null {
  const a = state.approval;
  if (a?.decision === 'rejected')
    return draft('RunTerminated', { status: 'cancelled', reason: 'plan_rejected' });
  if (!a || a.deadline_at === null || a.deadline_at > ctx.now || a.decision !== 'pending') return null;
  const comment = 'approval deadline passed; default_action applied';
  return state.config.approval?.default_action === 'approve'
    ? draft('ApprovalGranted', { comment, by: 'timeout' })
    : draft('ApprovalRejected', { comment, by: 'timeout' });
}

/**
 * A failed step under `on_step_failure: "replan"`: the revision strategy decides — skip it, stop, ask
 * a person, or ask the planner for a new version of the rest of the plan (counted against
 * `max_revisions`, after which the run fails with `Max replans exceeded`).
 */
export function decideRevision(state: RunState, id: string): EventDraft {
  const { revision_strategy, allow_revision, max_revisions } = state.config;
  const rt = state.steps.get(id)!;
  const why = `step "${id}" failed: ${rt.error?.message ?? 'failed'}`;
  if (revision_strategy === 'skip_and_continue') {
    return draft(
      'StepSkipped',
      { step_id: id, reason: 'failure_strategy', detail: 'skip_and_continue' },
      { step_id: id },
    );
  }
  if (revision_strategy === 'abort' || !allow_revision) {
    return draft('RunTerminated', {
      status: 'aborted',
      reason: 'revision_abort',
      error: { code: 'step_failed', message: `Stopped: ${why}`, retryable: false },
    });
  }
  if (revision_strategy === 'ask_user') {
    return draft(
      'InputRequested',
      // A question put to a person, shown as it is (the dashboard's heading, the CLI's prompt).
      { reason: `S${why.slice(1)}; how should the run continue?`, step_id: id },
      { step_id: id },
    );
  }
  if (state.revision_count >= max_revisions) {
    return draft('RunTerminated', {
      status: 'failed',
      reason: 'max_revisions',
      error: {
        code: 'max_revisions',
        message: `Max replans exceeded (${max_revisions}); last: ${why}`,
        retryable: false,
      },
    });
  }
  return draft(
    'RevisionRequested',
    { trigger: 'step_failure', reason: why, step_id: id, strategy: revision_strategy },
    { step_id: id },
  );
}

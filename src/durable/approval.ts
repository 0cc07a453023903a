/**
 * Plan approval for a run's object: an approver's decision — with the single-use link's token checked
 * first (approval-link.ts) — an approver's edit or a rollback turned into a validated new plan
 * version, and the plan the link's page shows. The link's announcement is approval-delivery.ts.
 */
import { applyEdits, parseApprovalDecision, type ApprovalDecision } from '../approval/decision';
import { nameSourceOf, type CallerVia } from '../approval/name-source';
import type { MachineInput } from '../engine/machine';
import {
  notAwaitingDecision,
  nothingToApprove as nothingToApproveText,
  otherVersionAwaited,
} from '../engine/status-refusals';
import type { RunState } from '../engine/state';
import type { ToolRegistry } from '../executor/registry';
import type { Plan } from '../plan/model';
import { validatePlan, type Finding } from '../plan/validate';
import { validationLimits } from '../plan/config';
import { inputShapeOf, type InputShape } from '../plan/input-shape';
import {
  changesSinceApproved,
  keptSteps,
  type ChangesSinceApproved,
  type KeptStep,
} from './pending-approval';
import { checkApprovalLink, spendApprovalToken, type ApprovalRefusal } from './approval-link';
import type { SqlStore } from './sql-store';

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
    // An edit is held to the run's input like the plan the run was created with.
    runInput: { value: state.input },
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
  /**
   * The run's input as kinds, no values (input-shape.ts): the page's Modify editor checks an edit's
   * `{{ input.… }}` as {@link validatedVersion} will, without the link's holder seeing the input. An
   * {@link InputShape}, typed loosely here: a recursive type is too deep for the RPC stub's types.
   */
  input_shape?: unknown;
  /** The run's validation limits, which {@link validatedVersion} holds an edit to: the editor's too. */
  limits: ApprovalLimits;
} & ChangesSinceApproved;

/** The limits of a run's configuration an edit is validated against (plan/config.ts). */
export type ApprovalLimits = {
  max_steps: number;
  max_depth: number;
  token_budget: number | null;
  require_fallbacks: boolean;
};

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
      ...shapeOf(state.input),
      limits: limitsOf(state.config),
      ...changesSinceApproved(state, store),
    },
  };
}

function limitsOf(config: RunState['config']): ApprovalLimits {
  const { max_steps, max_depth, token_budget, require_fallbacks } = validationLimits(config, false);
  return { max_steps, max_depth, token_budget: token_budget ?? null, require_fallbacks };
}

/** The input's shape for the page; none for a run without an input (nothing to check it against). */
function shapeOf(input: unknown): { input_shape?: InputShape } {
  const shape = input === undefined ? undefined : inputShapeOf(input);
  return shape === undefined ? {} : { input_shape: shape };
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

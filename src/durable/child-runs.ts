/**
 * Child runs: a step that runs a goal or a plan as a run of its own, in its own Durable Object
 * (`agent.dispatch` — which a sub-plan step records too — and `plan.execute`). The child's id is
 * derived from the parent's attempt, so a repeated attempt finds the same child instead of starting a
 * second one; when the child ends it reports its rolled-up result to the parent step, which was left
 * running. What the id, the result and a refused plan look like is shared with the in-process runner
 * (engine/child-run.ts, engine/child-outcome.ts).
 */
import { parseRunConfig, validationLimits } from '../plan/config';
import { runObject } from './run-object';
import type { Plan } from '../plan/model';
import { limitEnvNames } from '../plan/tea-meta';
import { validatePlan } from '../plan/validate';
import { ToolError } from '../errors';
import type { ToolRegistry } from '../executor/registry';
import { childOutcome, invalidChildPlan } from '../engine/child-outcome';
import { childRunId, type ChildRequest, type ParentRef } from '../engine/child-run';
import { snapshotRun } from '../engine/snapshot';
import type { RunState } from '../engine/state';
import type { SqlStore } from './sql-store';
import { reportable } from './call-limits';
import { sendSteps } from './fan-out';
import { readParent } from './run-parent';
import { createConfirmed } from './confirmed-create';
import { log } from '../log';
import { isUnreadableRun } from './row-schemas';
import type { ChildLineage } from './child-run-limits';
import type { RpcResult } from './rpc-result';

export type { ChildRequest, ParentRef } from '../engine/child-run';

/**
 * Starts (or finds) the child run of a parent attempt; throws a ToolError the step can report.
 * @example deferToChildRun(await startChildRun(env, registry, { run_id, step_id, attempt }, { plan }))
 */
export async function startChildRun(
  env: Env,
  tools: ToolRegistry,
  parent: ParentRef,
  req: ChildRequest,
  settingsEnv: readonly string[] = [],
): Promise<string> {
  const runId = await childRunId(parent);
  const config = parseRunConfig(req.config ?? {});
  let plan: Plan | undefined;
  if (req.plan !== undefined) {
    const v = validatePlan(req.plan, {
      tools,
      config: validationLimits(config, false),
      clock: { now: () => new Date() },
      ids: { id: (p) => `${p}_${runId.slice(4)}`, uuid: () => crypto.randomUUID() },
      // Held to the input the child gets, as POST /v1/runs holds a plan to its run's: a whole
      // {{ input.… }} its tool cannot take fails this step now, not the child's step later.
      runInput: { value: req.input ?? {} },
    });
    if (!v.valid || !v.plan) {
      const refused = invalidChildPlan(v.errors);
      throw new ToolError(refused.code, refused.message, { retryable: refused.retryable });
    }
    // The child reads no Worker variable its parent's step could not (tea-meta.ts).
    plan = limitEnvNames(v.plan, settingsEnv);
  } else if (!req.goal) {
    throw new ToolError('invalid_parameters', 'Give the child run a "goal" or a "plan"', {
      retryable: false,
    });
  }
  // Counted in the run's tree before it exists: a plan that dispatches itself stops at the limits.
  const lineage = await reserveChild(env, parent, runId);
  // A child whose config needs what an older object would not honour is refused, not created there.
  const created = await createConfirmed(env.PLAN_RUN, {
    run_id: runId,
    goal: plan?.goal || req.goal || '',
    ...(plan ? { plan } : {}),
    config,
    input: req.input ?? {},
    estimates: null,
    parent: lineage ? { ...parent, ...lineage } : parent,
  });
  if (created.ok) {
    await sendSteps(env.STEPS, created.value.outbox);
  } else if (!created.ok && created.error.code !== 'run_exists') {
    throw new ToolError(created.error.code, created.error.message, { retryable: true });
  }
  return runId;
}

/** What workerd throws for a method the object does not have: one still on an older release. */
const NOT_IMPLEMENTED = /RPC receiver does not implement/;

/**
 * Where child `runId` sits in its parent's tree, once the tree's root has counted it (the parent's
 * object asks the root: child-run-limits.ts). A limit reached is final; a parent or root that could
 * not answer, retryable. A parent (or root) still on an older release during a rollout cannot count:
 * the child is created uncounted, as an older release creates it, and the log says so.
 */
async function reserveChild(env: Env, parent: ParentRef, runId: string): Promise<ChildLineage | null> {
  let r: RpcResult<ChildLineage>;
  try {
    r = await runObject(env.PLAN_RUN, parent.run_id).reserveChildRun(runId);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    if (NOT_IMPLEMENTED.test(why)) {
      log('child_run_uncounted', `child run ${runId}: run ${parent.run_id}'s tree could not count it`, {
        run_id: parent.run_id,
        step_id: parent.step_id,
        attempt: parent.attempt,
        error: err,
      });
      return null;
    }
    throw new ToolError(
      'child_run_failed',
      `Child run ${runId} could not be counted in its run's tree: ${why}`,
    );
  }
  if (r.ok) return r.value;
  if (r.error.code === 'run_not_found') {
    const message = `Child run ${runId} refused: run ${parent.run_id}, or the run its tree started from, no longer exists`;
    throw new ToolError('child_run_failed', message, { retryable: false });
  }
  throw new ToolError(r.error.code, r.error.message, { retryable: r.error.code !== 'child_run_limit' });
}

/**
 * A child run that ended tells its parent step (which was left running) how it went. False when the
 * parent could not be told (the caller tries again later); a parent that no longer waits is told too.
 */
export async function reportToParent(env: Env, store: SqlStore, state: RunState): Promise<boolean> {
  let parent: ParentRef | null;
  try {
    parent = readParent(store);
  } catch (err) {
    if (!isUnreadableRun(err)) throw err;
    // Which parent to tell is in a row this release cannot read: trying again cannot read it either,
    // so this is the end of it (true), told to the operator. The parent's step fails at its deadline,
    // as it does for a child that was lost; the child itself is served as it is.
    log('child_run_not_reported', `child run ${state.run_id}: its parent row is unreadable`, {
      run_id: state.run_id,
      error: err,
    });
    return true;
  }
  if (!parent) return true;
  // The child runs with its parent's config: an outcome the parent would refuse as too large is
  // refused here, so it never has to cross the call (which would fail, leaving the step to time out).
  const { outcome } = reportable(
    parent.step_id,
    childOutcome(snapshotRun(state, store), state.started_at ?? state.created_at),
    state.config.max_output_bytes,
  );
  try {
    await runObject(env.PLAN_RUN, parent.run_id).completeSteps([
      { step_id: parent.step_id, attempt: parent.attempt, outcome },
    ]);
    return true;
  } catch (err) {
    log(
      'child_run_not_reported',
      `child run ${state.run_id}: could not report to ${parent.run_id}/${parent.step_id}`,
      {
        run_id: state.run_id,
        step_id: parent.step_id,
        attempt: parent.attempt,
        error: err,
      },
    );
    return false;
  }
}

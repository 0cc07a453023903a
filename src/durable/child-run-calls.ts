/**
 * The RPCs that count child runs in a run's tree (plan-run.ts names them): a run asks before one of
 * its steps starts a child, and the tree's root counts it (child-run-limits.ts).
 */
import { reserveChild, treeChildRunLimit, type ChildLineage } from './child-run-limits';
import type { RpcResult } from './rpc-result';
import type { RunDriver } from './run-driver';
import { runObject } from './run-object';

export async function reserveChildOf(
  run: RunDriver,
  env: Env,
  childId: string,
): Promise<RpcResult<ChildLineage>> {
  const m = run.load();
  if (!m) return { ok: false, error: { code: 'run_not_found', message: 'No such run' } };
  const limit = treeChildRunLimit(env);
  return reserveChild(m.state.run_id, run.parentRef(), childId, run.treeChildRuns, limit, (root) =>
    runObject(env.PLAN_RUN, root).countChildRun(childId),
  );
}

export function countChildOf(run: RunDriver, env: Env, childId: string): RpcResult<null> {
  const m = run.load();
  if (!m) return { ok: false, error: { code: 'run_not_found', message: 'No such run' } };
  return run.treeChildRuns.reserve(m.state.run_id, childId, treeChildRunLimit(env));
}

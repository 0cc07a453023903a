/**
 * Creating a run in its object when the Worker and the object may run different releases: during a
 * gradual deployment each object is assigned one version while the Worker in front may be either, and
 * any deploy takes seconds to minutes to reach every object (docs/upgrading.md, "Gradual
 * deployments"). A run whose config needs a storage format only some runs need (storage-format.ts
 * `needs`: approval.revisions "ask") must be stored by an object that honours it; an older release
 * would stamp it format 1 and ask for the approval of its first plan only. The object's answer says
 * which format it stored the run in — an older release's says nothing — so a run that needed more
 * and got no such answer is cancelled and deleted at once: it waits for the approval of its first
 * plan, so nothing of it has run. The caller is told to send the request again once the rollout has
 * moved on.
 */
import type { CreateRunRequest, CreatedRun } from './run-requests';
import { runObject, type RunObject } from './run-object';
import type { RpcResult } from './rpc-result';
import { BASE_FORMAT, formatFor } from './storage-format';
import { log } from '../log';

/**
 * How long a caller waits before sending the create again: the minute a deleted run's id is kept
 * from a new run (run-deleter.ts), while the KV copies of its plans go.
 */
export const DEPLOY_RETRY_AFTER_S = 60;

/** The reason the removed run is cancelled with (its trace says it, while its deletion runs). */
const UNDONE = 'created by a run object still on the previous release during a deploy; removed';

/**
 * Creates the run `req` describes in its object (`ns.getByName(req.run_id)`); when its config needs a
 * storage format the object did not confirm, removes it and answers `deploy_in_progress`.
 * @example const created = await createConfirmed(env.PLAN_RUN, { run_id, goal, config, input, estimates: null });
 */
export async function createConfirmed(
  ns: Env['PLAN_RUN'],
  req: CreateRunRequest,
): Promise<RpcResult<CreatedRun>> {
  const stub = runObject(ns, req.run_id);
  const created = await stub.create(req);
  const needed = formatFor(req.config);
  if (needed <= BASE_FORMAT) return created;
  if (created.ok) {
    // A replay comes from this release or a later one (older ones never replay): it serves the run
    // as its config says, whichever format it was stored in.
    if (created.value.replayed || (created.value.format ?? 1) >= needed) return created;
    await removeUnconfirmed(stub, req.run_id);
    return inProgress(req.run_id);
  }
  // This release answers a create with an Idempotency-Key whose run exists with that run (or 422);
  // only an older one says `run_exists` — the run this key created a moment ago and was removed, or
  // one it keeps. Either way the object is not yet this release's.
  if (created.error.code === 'run_exists' && req.fingerprint !== undefined) return inProgress(req.run_id);
  return created;
}

/** Cancels and deletes a run an older object has just created; logged either way. */
async function removeUnconfirmed(stub: RunObject, runId: string) {
  try {
    // Cancelled first: an older release, like this one, deletes only a run that has ended.
    await stub.cancel(UNDONE);
    const deleted = (await stub.deleteRun()) as RpcResult<unknown>;
    // `deletion_pending`: the run is hidden already, and its object finishes the deletion itself.
    if (!deleted.ok && deleted.error.code !== 'deletion_pending')
      throw new Error(`${deleted.error.code}: ${deleted.error.message}`);
    log(
      'run_create_undone',
      `run ${runId}: its object runs a release that does not honour approval.revisions "ask" (a deploy ` +
        'rolling out); the run was removed before anything of it ran, and the caller told to retry',
      { run_id: runId, code: 'deploy_in_progress' },
    );
  } catch (err) {
    log(
      'run_create_not_undone',
      `run ${runId}: created by a run object on the previous release, which will not ask for the ` +
        'approval of its revisions, and could not be removed: cancel it (POST /v1/runs/<id>/cancel)',
      { run_id: runId, code: 'deploy_in_progress', error: err },
    );
  }
}

function inProgress(runId: string): RpcResult<CreatedRun> {
  const message =
    `A deploy of edgeplan is rolling out, and run ${runId}'s object still runs the previous release, ` +
    'which would ask for the approval of the first plan only, not of its revisions (approval.revisions ' +
    `"ask"). Nothing of the run ran, and it was removed. Send the same request again in ` +
    `${DEPLOY_RETRY_AFTER_S} s (Retry-After) — with the same Idempotency-Key it then creates the run; ` +
    'if this goes on, the rollout has stopped part way: finish it (docs/upgrading.md, "Gradual deployments").';
  return {
    ok: false,
    error: {
      code: 'deploy_in_progress',
      message,
      details: { reason: 'deploy_in_progress', run_id: runId, retry_after_s: DEPLOY_RETRY_AFTER_S },
    },
  };
}

/**
 * A run object's `create` (plan-run.ts): a new run over empty storage, or — for a create with an
 * `Idempotency-Key` whose run exists — that run again. The answer carries the storage format the run
 * is stored in, the Worker's confirmation that this release honours what the run's config needs
 * (confirmed-create.ts).
 */
import type { Refusal } from '../engine/machine';
import { log } from '../log';
import { DecisionFault } from './decision-fault';
import type { StepMessage } from './messages';
import { rememberPlanText } from './plan-text';
import { readFingerprint } from './request-fingerprint';
import { sentPlan } from './row-schemas';
import type { RpcResult } from './rpc-result';
import type { RunDriver } from './run-driver';
import type { CreateRunRequest, CreatedRun } from './run-requests';

/**
 * Starts the run `req` describes in `run`, or answers why not. `fresh` gives the object a new driver
 * (and returns it) for a run whose id a deleted run held.
 * The first steps to queue come back in `outbox` for the caller to send.
 */
export async function createRun(
  run: RunDriver,
  req: CreateRunRequest,
  fresh: () => RunDriver,
): Promise<RpcResult<CreatedRun>> {
  if (run.load()) {
    if (req.fingerprint !== undefined) return replay(run, req.run_id, req.fingerprint);
    return { ok: false, error: { code: 'run_exists', message: `Run ${req.run_id} already exists` } };
  }
  // A run being deleted keeps its id until its storage is gone, and a minute after (run-deleter.ts);
  // then a fresh driver starts the new run over the emptied storage, nothing of the old one in memory.
  const refused = run.deleter.refuseCreate(req.run_id, req.fingerprint !== undefined, Date.now());
  if (refused) return { ok: false, error: refused };
  if (run.deleter.deleted) run = fresh();
  const { plan_json, fingerprint: _f, ...rest } = req;
  const sent = plan_json === undefined ? null : sentPlan(plan_json);
  // Before anything is written: a plan the object cannot read leaves no run behind.
  if (sent && !sent.ok) return { ok: false, error: { code: 'invalid_plan', message: sent.message } };
  const outbox: StepMessage[] = [];
  const plan = sent ? sent.plan : req.plan;
  if (sent && plan_json !== undefined) rememberPlanText(sent.plan, plan_json);
  let r: Refusal | undefined;
  try {
    r = await run.start(req, { type: 'create', ...rest, ...(plan ? { plan } : {}) }, outbox);
  } catch (err) {
    if (!(err instanceof DecisionFault)) throw err;
    await run.undoStart();
    fresh();
    const message = `${err.message}; nothing of run ${req.run_id} was kept. The error is logged as decision_failed — report it with the plan.`;
    log('decision_failed', message, { run_id: req.run_id, code: 'decision_failed', error: err.cause });
    return { ok: false, error: { code: 'decision_failed', message } };
  }
  if (r) return { ok: false, error: r };
  // The format it was stored in: the caller's confirmation that this release honours the config.
  const { format } = run.store;
  // Read again, not kept from before the awaits: an inline step's result may have come meanwhile, and
  // the machine been reloaded (or failed: run-driver.ts).
  const status = run.load()?.state.status;
  if (status === undefined)
    throw new Error(`Run ${req.run_id} was created but its object cannot read it back`);
  return { ok: true, value: { run_id: req.run_id, status, outbox, format } };
}

/**
 * A create with an `Idempotency-Key` whose run exists — a retry, or a request sent at the same time
 * as the one that created it: the run, if the request is the same; refused if the key was used for
 * another. Nothing is queued again (the first create's caller sent its steps, or their deadlines do).
 */
export function replay(run: RunDriver, runId: string, fingerprint: string): RpcResult<CreatedRun> {
  if (readFingerprint(run.store) !== fingerprint) {
    const message = `This Idempotency-Key already created run ${runId} from a different request body: send the same body to get that run again, or a new key to start another run`;
    return { ok: false, error: { code: 'idempotency_key_reused', message, details: { run_id: runId } } };
  }
  const status = run.machine!.state.status;
  const { format } = run.store;
  return { ok: true, value: { run_id: runId, status, outbox: [], replayed: true, format } };
}

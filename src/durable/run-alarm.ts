/**
 * What the object's alarm does: retries due, attempts past their deadline, inline attempts lost to an
 * eviction, the run index owed a write — and a run past its retention, or what is left of a deletion,
 * deleted. A run a newer release wrote keeps its alarm, for when that release is back.
 */
import type { RunMachine } from '../engine/machine';
import { TERMINAL_RUN_STATUSES } from '../plan/model';
import { isNewerFormatRun, NEWER_FORMAT_RETRY_AFTER_S } from './storage-format';
import { retentionDueAt, retentionMs } from './retention';
import type { RunDriver } from './run-driver';
import { log } from '../log';

/** `deleteRun`: the object's own, as its RPC is (a deletion is finished by calling it again). */
export async function runAlarm(
  run: RunDriver,
  env: Env,
  runId: string | undefined,
  deleteRun: () => Promise<unknown>,
): Promise<void> {
  run.alarm.fired();
  let m: RunMachine | null;
  try {
    m = run.load();
  } catch (err) {
    if (!isNewerFormatRun(err)) throw err;
    // A rollback: the run waits as the newer release left it. Its alarm is kept (a thrown alarm is
    // retried a few times, then dropped), so once that release is back the run carries on by itself.
    log('run_newer_format', (err as Error).message, { run_id: runId, code: 'run_newer_format' });
    await run.alarm.to(Date.now() + NEWER_FORMAT_RETRY_AFTER_S * 1000);
    return;
  }
  // Nothing to run: perhaps what is left of a deletion a crash or an outage interrupted.
  if (!m) return void (await deleteRun());
  const now = Date.now();
  const expires = TERMINAL_RUN_STATUSES.has(m.state.status)
    ? retentionDueAt(m.state.completed_at, retentionMs(env))
    : null;
  if (expires !== null && expires <= now) return void (await deleteRun());
  if (run.index.owed) await run.index.resync();
  run.inline.recover(m.state);
  await run.side.recover(now);
  // Before the tick: an attempt carried out in the object now is not timed out by it. The time is
  // read again after the awaits above, as the tick reads it: with the one from before them, an
  // unbegun attempt whose queue window ends with its deadline (step_timeout ≤ 60 s) could be not yet
  // out of its window here but past its deadline for the tick — timed out, not carried out.
  const redispatch = run.expired.collect(m, Date.now());
  await run.apply([...redispatch, { type: 'tick' }]);
  await run.arm(m);
}

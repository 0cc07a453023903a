/**
 * A run's deletion as its object carries it out (what goes, and in which order: run-deletion.ts): the
 * note and the run's hiding in one transaction, then its child runs, D1 rows and KV copies, and its own
 * storage last. One deletion at a time per instance; a second request waits for the first. The object
 * lends it only what a deletion needs ({@link DeletionHost}), not its run.
 *
 * A run this release cannot read (`run_unreadable`) is refused with that error, saying to add
 * `?force=true`; with it, the run is deleted without reading its state (run-deletion.ts's forcedNote),
 * in the same order. A run a newer release wrote (`run_newer_format`, after a rollback) is never
 * deleted here, forced or not: that release owns its rows.
 */
import type { RunMachine } from '../engine/machine';
import { TERMINAL_RUN_STATUSES } from '../plan/model';
import type { Alarm } from './alarm';
import { isUnreadableRun } from './row-schemas';
import type { RpcResult } from './rpc-result';
import {
  deleteChildren,
  deleteRows,
  deletionNote,
  DELETING,
  DELETION_RETRY_MS,
  forcedNote,
  readNote,
  type DeletedRun,
  type DeletionNote,
} from './run-deletion';
import type { SqlStore } from './sql-store';
import { isNewerFormatRun } from './storage-format';
import { subrequestLimit } from './subrequest-budget';
import { log } from '../log';

/**
 * Calls of a deletion's invocation kept back from its KV copies and child runs: its D1 batch, the run
 * index's last write, and one spare. The rest bounds the copies and children one invocation deletes;
 * past them the note keeps what is left, and the alarm (or a DELETE sent again) goes on from there.
 */
const DELETION_SPARE_CALLS = 3;
/** How soon the alarm goes on with a deletion one invocation could not finish within its calls. */
const DELETION_CONTINUE_MS = 1_000;

/**
 * How long after its deletion a run's id starts no new run (an `Idempotency-Key` sent again): KV copies
 * of the deleted run's plan versions, keyed by its id, may be served for up to 60 s after their delete
 * while it propagates, and would read as the new run's. After that the object starts a fresh run.
 */
export const REUSE_AFTER_DELETE_MS = 60_000;

/** Why a new run may not be made under a deleted run's id yet, as the create answers it. */
export type DeletedRunRefusal = {
  code: 'run_deleted';
  message: string;
  details: { reason: 'run_deleted'; run_id: string; retry_after_s: number };
};

/** What a deletion is asked to do. */
export type DeleteOptions = {
  /** A child run of a run being deleted: cancelled first if still going. */
  cascade?: boolean;
  /** A run this release cannot read is deleted without reading it (and so are its unreadable children). */
  force?: boolean;
};

/** What the run's object lends a deletion. */
export type DeletionHost = {
  /** The Worker's bindings, read at each use (a test may give the instance another env). */
  env: () => Env;
  storage: DurableObjectStorage;
  store: SqlStore;
  alarm: Alarm;
  /** The run's id (its object's name), for what a deletion says and for a run that cannot be read. */
  runId: () => string | undefined;
  /** The run as its object loads it, or null when it holds none; throws for one it cannot read. */
  load: () => RunMachine | null;
  /** Cancels the run (a child run whose parent is being deleted). */
  cancel: (reason: string) => Promise<unknown>;
  /** The run is hidden: the object forgets it and stops all it was doing for it in this instance. */
  release: () => Promise<void>;
};

export class RunDeleter {
  /** The run's storage is gone (this instance deleted it): nothing here is a run any more. */
  #deleted = false;
  /** When this instance finished deleting the run's storage (epoch ms). */
  #deletedAt = 0;
  /** A deletion under way in this instance, which a second request waits for instead of repeating. */
  #deletion: Promise<RpcResult<DeletedRun>> | null = null;

  constructor(private readonly host: DeletionHost) {}

  /** Whether this instance deleted the run's storage. */
  get deleted(): boolean {
    return this.#deleted;
  }

  /**
   * Why a create under this run's id must wait — its deletion under way, or finished less than
   * {@link REUSE_AFTER_DELETE_MS} ago — or null: a fresh run may be made (over storage now empty).
   * @example deleter.refuseCreate('run_x', true, Date.now()) // { code: 'run_deleted', … } for 60 s after
   */
  refuseCreate(runId: string, keyed: boolean, now: number): DeletedRunRefusal | null {
    const underWay = !this.#deleted && this.noted();
    if (!underWay && (!this.#deleted || now >= this.#deletedAt + REUSE_AFTER_DELETE_MS)) return null;
    const waitMs = underWay ? REUSE_AFTER_DELETE_MS : this.#deletedAt + REUSE_AFTER_DELETE_MS - now;
    const retry_after_s = Math.max(1, Math.ceil(waitMs / 1000));
    const message = keyed
      ? `The run this Idempotency-Key created (${runId}) was deleted a moment ago: the key starts a new run ${retry_after_s} s from now (Retry-After), once copies of the deleted run's plans have gone; send the request with a new key to start one now`
      : `Run ${runId} was deleted a moment ago: a new run under its id can start ${retry_after_s} s from now`;
    return { code: 'run_deleted', message, details: { reason: 'run_deleted', run_id: runId, retry_after_s } };
  }

  /** Whether a deletion was noted in the object's storage (and the run is hidden). */
  noted(): boolean {
    return this.host.store.exists && this.host.store.getMeta(DELETING) !== null;
  }

  /** Deletes the run, which must have ended, or finishes a deletion noted earlier. */
  delete(opts: DeleteOptions = {}): Promise<RpcResult<DeletedRun>> {
    this.#deletion ??= this.#delete(opts.cascade === true, opts.force === true).finally(
      () => (this.#deletion = null),
    );
    return this.#deletion;
  }

  /**
   * Notes what is to go and hides the run in one transaction (run-deletion.ts), then removes it all.
   * Not loaded again once noted: a run whose deletion was noted is no run any more, only what is left
   * of one.
   */
  async #delete(cascade: boolean, force: boolean): Promise<RpcResult<DeletedRun>> {
    const { store } = this.host;
    const gone = { ok: false as const, error: { code: 'run_not_found' as const, message: 'No such run' } };
    if (this.#deleted || !store.exists) return gone;
    let m: RunMachine | null;
    try {
      m = this.host.load();
    } catch (err) {
      return this.#unloadable(err, force);
    }
    if (!m) return this.#finishNoted(force) ?? gone;
    if (cascade && !TERMINAL_RUN_STATUSES.has(m.state.status))
      await this.host.cancel('its parent run was deleted');
    const note = await deletionNote(m.state, store);
    // Asked again after the awaits: a retry may have started the run meanwhile.
    m = this.host.load();
    if (!m) return this.#finishNoted(force) ?? gone;
    if (!TERMINAL_RUN_STATUSES.has(m.state.status)) {
      const id = m.state.run_id;
      const message = `Run ${id} is ${m.state.status}: cancel it first (POST /v1/runs/${id}/cancel), then delete it`;
      return { ok: false, error: { code: 'run_active', message } };
    }
    return this.#noteAndFinish(note);
  }

  /**
   * A run whose rows could not be loaded: deleted by force if asked to and this release is only unable
   * to read them; otherwise the error again, thrown (it crosses RPC as text: the API answers it with its
   * code), saying what a DELETE can do about it.
   */
  async #unloadable(err: unknown, force: boolean): Promise<RpcResult<DeletedRun>> {
    const id = this.host.runId();
    if (isNewerFormatRun(err))
      throw new Error(
        `${(err as Error).message} It cannot be deleted by this release, not even with ?force=true: the ` +
          'release that wrote it owns its rows. Delete it once that release is deployed again.',
      );
    if (!isUnreadableRun(err) || id === undefined) throw err;
    if (!force)
      throw new Error(
        `${err.message} To delete it without reading it (with its child runs, D1 rows and KV copies): ` +
          `DELETE /v1/runs/${id}?force=true (edgeplan delete ${id} --force).`,
      );
    log('run_force_deleted', `run ${id}: deleting it by force, without reading its state`, {
      run_id: id,
      error: err,
    });
    return this.#noteAndFinish(await forcedNote(id, this.host.store));
  }

  /** Notes the deletion and hides the run in one transaction, then removes everything. */
  async #noteAndFinish(note: DeletionNote): Promise<RpcResult<DeletedRun>> {
    const { store } = this.host;
    this.host.storage.transactionSync(() => {
      store.setMeta(DELETING, JSON.stringify(note));
      store.deleteMeta('run');
    });
    // If this instance dies before the end, the alarm finishes the deletion: set with the note, before
    // anything waits on I/O (the run index's D1 writes `release` waits for), or a crash meanwhile left
    // the run hidden, still listed and its plans readable, until someone sent DELETE again.
    await this.host.alarm.to(Date.now() + DELETION_RETRY_MS);
    await this.host.release();
    return this.#finish(note, false);
  }

  /**
   * Keeps what a deletion has left in its note and has the alarm go on with it soon: answered as
   * `deletion_pending` (a client sends the DELETE again, which goes on at once).
   */
  async #goOn(left: DeletionNote): Promise<RpcResult<DeletedRun>> {
    this.host.store.setMeta(DELETING, JSON.stringify(left));
    await this.host.alarm.to(Date.now() + DELETION_CONTINUE_MS);
    const message =
      `Run ${left.run_id} is deleted from view; ${left.children.length} child run(s) and ` +
      `${left.versions} plan version copies are left for the next invocation (one may make only so many ` +
      'calls); its object goes on within seconds, or DELETE it again';
    return { ok: false, error: { code: 'deletion_pending', message } };
  }

  /** Finishes a deletion noted earlier (`force`: its unreadable child runs too); null when none was. */
  #finishNoted(force: boolean): Promise<RpcResult<DeletedRun>> | null {
    const note = this.host.store.exists ? readNote(this.host.store) : null;
    return note && this.#finish(note, force);
  }

  async #finish(note: DeletionNote, force: boolean): Promise<RpcResult<DeletedRun>> {
    const env = this.host.env();
    try {
      // Its D1 rows and KV copies first: the run leaves the list and its plan versions at once, even
      // when a child's deletion has to wait (one this release cannot read waits for ?force=true).
      // Every copy and child is a call of this invocation's: as many as its plan allows go now.
      let calls = Math.max(2, subrequestLimit(env) - DELETION_SPARE_CALLS) - 1;
      const versions = await deleteRows(env, note, calls);
      calls -= note.versions - versions;
      const now = note.children.slice(0, Math.max(0, calls));
      const child_runs = await deleteChildren(env, now, force || note.force === true);
      const children = note.children.slice(now.length);
      if (versions > 0 || children.length > 0) return await this.#goOn({ ...note, versions, children });
      await this.host.alarm.to(null);
      await this.host.storage.deleteAll();
      this.#deleted = true;
      this.#deletedAt = Date.now();
      return { ok: true, value: { run_id: note.run_id, child_runs } };
    } catch (err) {
      log('deletion_pending', `run ${note.run_id}: deletion not finished yet`, {
        run_id: note.run_id,
        error: err,
      });
      await this.host.alarm.to(Date.now() + DELETION_RETRY_MS);
      const message = `Run ${note.run_id} is deleted from view, but not everything stored for it could be removed yet (${(err as Error).message}); it is retried within a minute, or DELETE it again`;
      return { ok: false, error: { code: 'deletion_pending', message } };
    }
  }
}

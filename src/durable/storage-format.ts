/**
 * The storage format of a run's object: which layout of tables and rows its SQLite holds, stamped as
 * the `storage_format` row of `meta` by the run's first transaction (run-schema.ts), and read with the
 * meta row the store reads anyway when the object is loaded (sql-store.ts) — no statement of its own.
 * (`PRAGMA user_version` is not an option: Durable Object SQLite refuses it.)
 *
 * A release that changes what a run's rows hold adds a migration here; an object written by an earlier
 * format is brought up to date, in one transaction, when it is next loaded. An object without a stamp
 * was written before the stamp existed, in format 1. One whose stamp is newer than this release knows
 * (a rollback after a newer release wrote to it) is refused, not touched: nothing this release writes
 * can corrupt it, and the newer release serves it again once it is back (docs/upgrading.md).
 *
 * Every format has a frozen fixture of real run objects under test/fixtures/storage/v<N>/, which
 * test/workers/storage-fixtures.test.ts loads and drives to completion on every change.
 */

import { log } from '../log';
import type { RunConfig } from '../plan/config';

/** The `meta` row holding the stamp. */
export const FORMAT_KEY = 'storage_format';

/** One step of the registry: what changes an object from format `to - 1` to format `to`. */
export type StorageMigration = {
  to: number;
  /** What the format changed, for the log and docs/upgrading.md. */
  about: string;
  /** Runs inside the upgrade's transaction; must leave the rows in format `to`. */
  migrate(sql: SqlStorage): void;
  /**
   * A format only some runs need: their rows are laid out as in the format before, but a release of
   * that format would read a run that uses what this one added wrong. Whether a new run's config uses
   * it: such a run is stamped with this format when created; every other run keeps the format before
   * — a rollback to those releases still serves it — and an older object is not brought to it.
   */
  needs?: (config: RunConfig) => boolean;
};

/**
 * The formats in order. The first is the baseline — the layout of 2026-11-27, which objects without a
 * stamp hold too — and migrates nothing. Append only: a released entry is never edited or removed.
 */
export const STORAGE_MIGRATIONS: readonly StorageMigration[] = [
  {
    to: 1,
    about:
      'Baseline: meta, plans, steps, attempts, events, outputs, blobs (and leases, side_work, vars on first use).',
    migrate: () => {},
  },
  {
    to: 2,
    about:
      'approval.revisions "ask" (2026-11-29): a run may wait for the approval of a plan version after ' +
      'its first, and hold a question back meanwhile. The rows are laid out as in format 1, but a ' +
      'format-1 release reads such a run wrong: its config drops `revisions` (written back so at its ' +
      'next change), so a later version would run unapproved. Only such runs are stamped 2; a ' +
      'format-1 release refuses them (run_newer_format) and serves every other run.',
    migrate: () => {},
    needs: (config) => config.require_plan_approval && config.approval?.revisions === 'ask',
  },
];

/** The newest format this release reads (and writes, for a run that needs it). */
export const STORAGE_FORMAT = STORAGE_MIGRATIONS[STORAGE_MIGRATIONS.length - 1]!.to;

/**
 * The format a new run with `config` is stamped with: the newest every run needs, or a newer one
 * that only runs like it need (see `needs`).
 * @example formatFor(parseRunConfig({})) // 1
 */
export function formatFor(
  config: RunConfig,
  registry: readonly StorageMigration[] = STORAGE_MIGRATIONS,
): number {
  let format = 1;
  for (const m of registry) if (!m.needs || m.needs(config)) format = m.to;
  return format;
}

/** The format most new runs are stamped with: the newest every run needs. */
export const BASE_FORMAT = Math.max(...STORAGE_MIGRATIONS.filter((m) => !m.needs).map((m) => m.to));

/** The stamp as stored (a meta value), or null for an object that has none: format 1. */
export function storedFormat(stamp: string | null): number {
  if (stamp === null) return 1;
  const n = Number(stamp);
  // A stamp this release cannot read as a format is treated as one from the future: left alone.
  return Number.isInteger(n) && n >= 1 ? n : Number.POSITIVE_INFINITY;
}

/**
 * How long a queue message for a run refused for its newer format waits before its next delivery:
 * the steps queue's 10 retries then span about an hour of a rollback (docs/upgrading.md).
 */
export const NEWER_FORMAT_RETRY_S = 360;

/** How often such a run's alarm wakes (and does nothing), and the `Retry-After` its API answers carry. */
export const NEWER_FORMAT_RETRY_AFTER_S = 300;

/** How the message of a run refused for its newer format begins (it crosses RPC as text only). */
const NEWER = 'Run storage format newer than this release:';

/**
 * The migrations an object stored in format `stored` needs, oldest first (none when it is current);
 * throws, for an object a newer release wrote, the error the API answers with `run_newer_format`.
 */
export function migrationsFor(
  stored: number,
  runId: string,
  registry: readonly StorageMigration[] = STORAGE_MIGRATIONS,
): StorageMigration[] {
  const current = registry[registry.length - 1]!.to;
  if (stored > current) {
    const which = Number.isFinite(stored) ? `format ${stored}` : 'a format it cannot read';
    throw new Error(
      `${NEWER} run ${runId} is stored in ${which}, and this release reads formats up to ${current}. ` +
        'A newer edgeplan release wrote it before this one was deployed (a rollback); nothing was ' +
        'changed, and the run waits as it was. Deploy the newer release again to carry it on ' +
        '(docs/upgrading.md, "Rolling back").',
    );
  }
  return registry.filter((m) => m.to > stored);
}

/** Whether `err` is {@link migrationsFor}'s refusal (thrown here, maybe across RPC). */
export function isNewerFormatRun(err: unknown): boolean {
  return err instanceof Error && err.message.includes(NEWER);
}

/**
 * Brings an object from format `stored` to the current one in one transaction, stamped at the end;
 * nothing is written when it is current, or when the formats after its own are only for runs that
 * need them (an object without a stamp stays without one until a format every run needs follows 1).
 * Returns the format it is in now.
 */
export function upgradeStorage(
  storage: DurableObjectStorage,
  stored: number,
  runId: string,
  registry: readonly StorageMigration[] = STORAGE_MIGRATIONS,
): number {
  const pending = migrationsFor(stored, runId, registry);
  // A format only some new runs need is not one an older object needs (it was created before it).
  while (pending.length > 0 && pending[pending.length - 1]!.needs) pending.pop();
  if (pending.length === 0) return stored;
  const to = pending[pending.length - 1]!.to;
  storage.transactionSync(() => {
    for (const m of pending) m.migrate(storage.sql);
    storage.sql.exec(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
      FORMAT_KEY,
      String(to),
    );
  });
  log('storage_upgraded', `run ${runId}: storage upgraded from format ${stored} to ${to}`, { run_id: runId });
  return to;
}

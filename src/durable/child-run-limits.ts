/**
 * How many child runs a run's tree may start, and how deep they may nest. A child's plan and input may
 * come from data (`{{ input.plan }}`, a step's output), so a plan can dispatch itself: one request
 * would start child runs without end, each in an object of its own — under `wrangler dev`, thousands
 * a minute until the runtime ran out of files and crashed. Every child run is counted at the tree's
 * root (the run no step started), which refuses past {@link MAX_TREE_CHILD_RUNS}; its parent refuses
 * one past {@link MAX_CHILD_RUN_DEPTH}. A child records its root and depth beside its parent
 * (run-parent.ts), so its own children are counted at the same root. The Worker's `MAX_CHILD_RUNS`
 * sets the tree's limit, for a plan that fans out over more items than that on purpose.
 */
import {
  MAX_CHILD_RUN_DEPTH,
  MAX_CHILD_RUNS_SETTING,
  MAX_TREE_CHILD_RUNS,
  maxChildRunsSetting,
  type ParentRef,
} from '../engine/child-run';
import { log } from '../log';
import { LazyTable } from './lazy-table';
import type { RpcResult } from './rpc-result';

export { MAX_CHILD_RUN_DEPTH, MAX_TREE_CHILD_RUNS };

/** Values already reported as unreadable (logged once per isolate, not at every child). */
const reported = new Set<string>();

/**
 * How many child runs one run's tree may start: `MAX_CHILD_RUNS` when it is a whole number from 1 to
 * {@link MAX_CHILD_RUNS_SETTING}, else {@link MAX_TREE_CHILD_RUNS} — a value that is not one is
 * logged (`child_run_limit_invalid`) with what to set, and the default holds.
 * @example treeChildRunLimit({ MAX_CHILD_RUNS: '5000' }) // 5000
 */
export function treeChildRunLimit(env: { MAX_CHILD_RUNS?: string | undefined }): number {
  const raw = env.MAX_CHILD_RUNS;
  if (raw === undefined || raw.trim() === '') return MAX_TREE_CHILD_RUNS;
  const n = maxChildRunsSetting(raw);
  if (n !== null) return n;
  if (!reported.has(raw)) {
    reported.add(raw);
    log(
      'child_run_limit_invalid',
      `MAX_CHILD_RUNS is "${raw.slice(0, 40)}": expected a whole number from 1 to ${MAX_CHILD_RUNS_SETTING}; a run's tree may start ${MAX_TREE_CHILD_RUNS} child runs until it is one`,
    );
  }
  return MAX_TREE_CHILD_RUNS;
}

/** Where a run sits in its tree: the run no step started, and how many levels below it. */
export type ChildLineage = { root_run_id: string; depth: number };

const TABLE = 'tree_child_runs';
const SCHEMA = `CREATE TABLE IF NOT EXISTS ${TABLE} (run_id TEXT PRIMARY KEY)`;

/**
 * Where the run `runId` sits, from its parent row: a run with no parent is its own root. A child
 * created before lineage was recorded counts from its parent, as if that were the root.
 * @example lineageOf('run_a', null) // { root_run_id: 'run_a', depth: 0 }
 */
export function lineageOf(runId: string, parent: ParentRef | null): ChildLineage {
  if (!parent) return { root_run_id: runId, depth: 0 };
  return { root_run_id: parent.root_run_id ?? parent.run_id, depth: parent.depth ?? 1 };
}

/**
 * The refusal of a child one level deeper than `lineage` allows, or null when it may nest there.
 * @example tooDeep({ root_run_id: 'run_a', depth: 10 }) // { ok: false, error: { code: 'child_run_limit', … } }
 */
export function tooDeep(lineage: ChildLineage): RpcResult<never> | null {
  if (lineage.depth + 1 <= MAX_CHILD_RUN_DEPTH) return null;
  return limitReached(
    `a child run would nest ${lineage.depth + 1} levels below run ${lineage.root_run_id}; child runs ` +
      `nest at most ${MAX_CHILD_RUN_DEPTH} deep (a plan that dispatches itself never stops)`,
  );
}

/**
 * Where child run `childId` of run `runId` (whose parent row is `parent`) sits in the tree, once the
 * tree's root has counted it — `tree` when `runId` is the root, else `countAtRoot` asks the root's
 * object; refused past {@link MAX_CHILD_RUN_DEPTH} or {@link MAX_TREE_CHILD_RUNS}.
 */
export async function reserveChild(
  runId: string,
  parent: ParentRef | null,
  childId: string,
  tree: TreeChildRuns,
  limit: number,
  countAtRoot: (rootId: string) => Promise<RpcResult<null>>,
): Promise<RpcResult<ChildLineage>> {
  const own = lineageOf(runId, parent);
  const deep = tooDeep(own);
  if (deep) return deep;
  const counted =
    own.root_run_id === runId ? tree.reserve(runId, childId, limit) : await countAtRoot(own.root_run_id);
  if (!counted.ok) return counted;
  return { ok: true, value: { root_run_id: own.root_run_id, depth: own.depth + 1 } };
}

/** The child runs a tree's root has counted (its own object's table). */
export class TreeChildRuns {
  readonly #sql: SqlStorage;
  readonly #table: LazyTable;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
    this.#table = new LazyTable(sql, TABLE, SCHEMA);
  }

  /**
   * Counts child run `childId` in the tree of root `rootId` (this object's run); again for the same
   * child (a repeated attempt finds the same one), nothing more. Refused once `limit` are counted
   * ({@link treeChildRunLimit}).
   */
  reserve(rootId: string, childId: string, limit: number): RpcResult<null> {
    if (this.#table.exists) {
      const known = this.#sql.exec(`SELECT 1 FROM ${TABLE} WHERE run_id = ?`, childId).toArray();
      if (known.length > 0) return { ok: true, value: null };
      const count = this.#sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${TABLE}`).one().n;
      if (count >= limit) {
        return limitReached(
          `run ${rootId} and its child runs have started ${count} child runs, the most one run's tree ` +
            `may (${limit}, the Worker's MAX_CHILD_RUNS); a plan that dispatches itself would start them without end`,
        );
      }
    }
    this.#table.ensure();
    this.#sql.exec(`INSERT OR IGNORE INTO ${TABLE} (run_id) VALUES (?)`, childId);
    return { ok: true, value: null };
  }
}

function limitReached(why: string): RpcResult<never> {
  return { ok: false, error: { code: 'child_run_limit', message: `Child run refused: ${why}` } };
}

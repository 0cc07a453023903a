/**
 * Step-level diff between two plan versions (`GET /v1/runs/:id/plans/:a/diff/:b`, SPEC §6). Pure and
 * linear in plan size: steps are matched by id through maps, values are compared structurally with
 * object keys in sorted order, and nothing recurses on the data, so deeply nested parameters cannot
 * overflow the stack.
 */
import type { Plan, PlanStep } from './model';

/** A field's value before and after; an absent field is `null`, so the diff survives JSON. */
export type FieldChange = { from: unknown; to: unknown };

/** What changed in one step present in both versions. */
export type StepChange = {
  step_id: string;
  /** Every changed field, keys in sorted order. */
  fields: Record<string, FieldChange>;
  /** Dependencies in the new version only (empty when none). */
  dependencies_added: string[];
  /** Dependencies in the old version only (empty when none). */
  dependencies_removed: string[];
};

/** The plan-level fields a diff reports. */
export const PLAN_DIFF_FIELDS = ['goal', 'success_criteria', 'strategy'] as const;
export type PlanDiffField = (typeof PLAN_DIFF_FIELDS)[number];

export type PlanDiff = {
  from_version: number;
  to_version: number;
  /** Changed plan-level fields (goal, success_criteria, strategy). */
  fields: Partial<Record<PlanDiffField, FieldChange>>;
  /** Steps only in the new version, in its order. */
  added: PlanStep[];
  /** Ids of steps only in the old version, in its order. */
  removed: string[];
  /** Steps in both versions whose content differs, in the new version's order. */
  changed: StepChange[];
  /** True when the steps present in both versions come in a different relative order. */
  reordered: boolean;
};

/**
 * Compares two versions of a plan step by step. Dependencies are compared as sets (their order
 * means nothing to the scheduler); `null` and an absent field are the same; every other value is
 * compared structurally, so `{a: 1, b: 2}` equals `{b: 2, a: 1}`. A duplicated step id (only in an
 * invalid plan) is matched on its first occurrence.
 * @example
 * const d = diffPlans(v1, v2);
 * // { from_version: 1, to_version: 2, fields: {}, added: [...], removed: ['b'],
 * //   changed: [{ step_id: 'c', fields: { parameters: { from: {...}, to: {...} } }, ... }], reordered: false }
 */
export function diffPlans(a: Plan, b: Plan): PlanDiff {
  const before = indexSteps(a.steps);
  const after = indexSteps(b.steps);

  const fields: Partial<Record<PlanDiffField, FieldChange>> = {};
  for (const f of PLAN_DIFF_FIELDS) {
    if (!sameValue(a[f], b[f])) fields[f] = change(a[f], b[f]);
  }

  const removed = [...before.keys()].filter((id) => !after.has(id));
  const added: PlanStep[] = [];
  const changed: StepChange[] = [];
  for (const [id, step] of after) {
    const old = before.get(id);
    if (old === undefined) added.push(step);
    else {
      const c = diffStep(old, step);
      if (c) changed.push(c);
    }
  }

  return {
    from_version: a.version,
    to_version: b.version,
    fields,
    added,
    removed,
    changed,
    reordered: isReordered(before, after),
  };
}

/** Steps by id in plan order; the first of a duplicated id wins. */
function indexSteps(steps: readonly PlanStep[]): Map<string, PlanStep> {
  const m = new Map<string, PlanStep>();
  for (const s of steps) if (!m.has(s.id)) m.set(s.id, s);
  return m;
}

function diffStep(a: PlanStep, b: PlanStep): StepChange | null {
  const fields: Record<string, FieldChange> = {};
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  keys.delete('id');
  const va = a as Record<string, unknown>;
  const vb = b as Record<string, unknown>;
  let dependencies_added: string[] = [];
  let dependencies_removed: string[] = [];
  for (const k of [...keys].sort()) {
    if (k === 'dependencies') {
      const from = new Set(a.dependencies);
      const to = new Set(b.dependencies);
      dependencies_added = [...to].filter((d) => !from.has(d));
      dependencies_removed = [...from].filter((d) => !to.has(d));
      if (dependencies_added.length > 0 || dependencies_removed.length > 0) {
        fields[k] = change(a.dependencies, b.dependencies);
      }
    } else if (!sameValue(va[k], vb[k])) {
      fields[k] = change(va[k], vb[k]);
    }
  }
  if (Object.keys(fields).length === 0) return null;
  return { step_id: b.id, fields, dependencies_added, dependencies_removed };
}

/** Whether the ids common to both versions appear in the same relative order. */
function isReordered(before: Map<string, PlanStep>, after: Map<string, PlanStep>): boolean {
  const common: string[] = [];
  for (const id of before.keys()) if (after.has(id)) common.push(id);
  let i = 0;
  for (const id of after.keys()) {
    if (!before.has(id)) continue;
    if (common[i] !== id) return true;
    i++;
  }
  return false;
}

function change(from: unknown, to: unknown): FieldChange {
  return { from: from ?? null, to: to ?? null };
}

/** `null` and `undefined` are the same "no value" at the top level of a field. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a == null || b == null) return a == null && b == null;
  return deepEqual(a, b);
}

/**
 * Structural equality over JSON-like values, iterative so nesting depth cannot overflow the stack.
 * Object keys whose value is `undefined` are ignored, as JSON would drop them.
 * @example
 * deepEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2, c: undefined }] }); // true
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  const stack: [unknown, unknown][] = [[a, b]];
  for (let pair = stack.pop(); pair !== undefined; pair = stack.pop()) {
    const [x, y] = pair;
    if (Object.is(x, y)) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (Array.isArray(x) !== Array.isArray(y)) return false;
    if (Array.isArray(x) && Array.isArray(y)) {
      if (x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) stack.push([x[i], y[i]]);
      continue;
    }
    const ox = x as Record<string, unknown>;
    const oy = y as Record<string, unknown>;
    const kx = definedKeys(ox);
    const ky = definedKeys(oy);
    if (kx.length !== ky.length) return false;
    for (let i = 0; i < kx.length; i++) {
      const k = kx[i] as string;
      if (k !== ky[i]) return false;
      stack.push([ox[k], oy[k]]);
    }
  }
  return true;
}

function definedKeys(o: Record<string, unknown>): string[] {
  return Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort();
}

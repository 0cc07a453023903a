import { describe, expect, it } from 'vitest';
import { analyzeStep, buildGraph, findCycles, topologicalOrder } from '../../src/plan/graph';
import type { PlanStep } from '../../src/plan/model';
import type { PathSegment } from '../../src/plan/references';

/**
 * The graph builder uses hash tables, a trie and look-ahead guesses; here it is held against the
 * definition, computed the slow way (every id by indexOf, every state path against every write).
 */
function naiveGraph(steps: readonly PlanStep[]): {
  deps: number[][];
  missing: string[][];
  duplicates: number[];
} {
  const ids = steps.map((s) => s.id);
  const analyses = steps.map(analyzeStep);
  const writes: { step: number; path: PathSegment[] }[] = [];
  analyses.forEach((a, j) => {
    if (a.writes.success) writes.push({ step: j, path: a.writes.success });
    if (a.writes.failure) writes.push({ step: j, path: a.writes.failure });
  });
  const deps: number[][] = [];
  const missing: string[][] = [];
  steps.forEach((step, i) => {
    const mine = new Set<number>();
    const unknown: string[] = [];
    const named = (id: string): void => {
      const j = ids.indexOf(id);
      if (j >= 0) mine.add(j);
      else if (!unknown.includes(id)) unknown.push(id);
    };
    step.dependencies.forEach(named);
    for (const r of analyses[i]!.refs) {
      if (r.source === 'steps') named(r.stepId ?? '');
      if (r.source !== 'state') continue;
      for (const w of writes) {
        const related =
          isPrefix(w.path, r.path) || (w.path.length > r.path.length && isPrefix(r.path, w.path));
        if (related && w.step !== i) mine.add(w.step);
      }
    }
    deps.push([...mine].sort((a, b) => a - b));
    missing.push(unknown);
  });
  const duplicates = ids.flatMap((id, i) => (ids.indexOf(id) < i ? [i] : []));
  return { deps, missing, duplicates };
}

function isPrefix(prefix: readonly PathSegment[], path: readonly PathSegment[]): boolean {
  return prefix.length <= path.length && prefix.every((seg, k) => String(seg) === String(path[k]));
}

function random(seed: number): (k: number) => number {
  // mulberry32: small, and unlike a bare LCG its low bits are not periodic.
  let s = seed >>> 0;
  return (k) => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t ^= t + Math.imul(t ^ (t >>> 7), 61 | t);
    return ((t ^ (t >>> 14)) >>> 0) % k;
  };
}

const STATE_PATHS = ['a', 'b', 'a.b', 'a.b.c', 'a[0]', 'a.0', "a['b']", 'r.s1', 'r.s2', 'r'];

/**
 * A random plan: ids in sequence (as generated plans have them) or drawn from a small set (so
 * they repeat), reading the previous step or any step (present or not), and state written and read
 * at paths that overlap.
 */
function randomPlan(seed: number): PlanStep[] {
  const next = random(seed);
  const n = 1 + next(40);
  const sequential = next(2) === 0;
  const ids = Array.from({ length: n }, (_, i) => (sequential ? `s${i}` : `s${next(n + 3)}`));
  return ids.map((id, i) => {
    const other = (): string => (next(3) === 0 ? ids[Math.max(0, i - 1)]! : `s${next(n + 3)}`);
    const state = (): string =>
      next(2) === 0 ? `r.${ids[Math.max(0, i - 1)]}` : STATE_PATHS[next(STATE_PATHS.length)]!;
    const parameters: Record<string, unknown> = {};
    for (let k = next(4); k > 0; k--) {
      parameters[`p${k}`] =
        next(2) === 0
          ? `{{ steps.${other()}.output.items[0] }}`
          : `{{ state.${state()} }} and {{ steps.${other()}.output }}`;
    }
    const step: PlanStep = {
      id,
      description: id,
      action: 'demo.echo',
      parameters,
      dependencies: Array.from({ length: next(3) }, other),
    };
    const out = next(5);
    if (out === 1) step.output_path = `state.r.${id}`;
    if (out === 2) step.output_path = `state.${state()}`;
    if (out === 3) step.output_path = `state.${state()} || state.${state()}`;
    if (out === 4 && next(4) === 0) step.output_path = 'nowhere';
    if (next(6) === 0) step.when = `state.${state()} != null`;
    return step;
  });
}

describe('graph builder against the definition', () => {
  it('gives the same dependencies, missing ids and duplicates on random plans', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const steps = randomPlan(seed);
      const g = buildGraph(steps);
      const want = naiveGraph(steps);
      expect({ deps: g.depIndex, missing: g.missing, duplicates: g.duplicates }).toEqual(want);
      expect([...g.index]).toEqual([...new Map(steps.map((s, i) => [s.id, i] as const).reverse())]);
      expect(g.writes).toEqual(steps.map((s) => analyzeStep(s).writes));
      expect(findCycles(g).length === 0).toBe(topologicalOrder(g).complete);
    }
  });
});

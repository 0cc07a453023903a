/**
 * The order a TEA workflow runs its nodes in. TEA's rules, by precedence: a node's `goto`, the
 * `navigation:` map, the legacy `edges:` list, else the next node in the list (the last one ends).
 * `__start__` names the entry (default: the first node), `__end__` ends the run. Only unconditional
 * navigation can become a plan: conditional `goto` lists, parallel edges and loops are reported.
 */
import { importFailed, issueAt } from './types';
import type { ImportIssue } from './types';

/** One "after `from` comes `to`" statement, with where it was written. */
export type NavEntry = { from: string; to: unknown; line: number; source: 'goto' | 'navigation' | 'edges' };

const PRECEDENCE: Record<NavEntry['source'], number> = { goto: 0, navigation: 1, edges: 2 };
export const START = '__start__';
export const END = '__end__';

/**
 * The nodes in the order they run, and those never reached.
 * @example
 * executionOrder([{ name: 'a', line: 1 }, { name: 'b', line: 4 }], [{ from: 'a', to: '__end__', line: 8, source: 'navigation' }])
 * // { ok: true, order: ['a'], unreached: ['b'] }
 */
export function executionOrder(
  nodes: readonly { name: string; line: number }[],
  entries: readonly NavEntry[],
): { ok: true; order: string[]; unreached: string[] } | { ok: false; errors: ImportIssue[] } {
  const errors: ImportIssue[] = [];
  const position = new Map(nodes.map((n, i) => [n.name, i]));
  const next = new Map<string, NavEntry>();
  for (const e of entries) {
    if (e.from !== START && !position.has(e.from)) {
      errors.push(
        issueAt('unknown_node', e.line, `the ${e.source} entry names "${e.from}", which is not a node`),
      );
      continue;
    }
    if (typeof e.to !== 'string') {
      errors.push(
        issueAt(
          'unsupported_navigation',
          e.line,
          `the ${e.source} of "${e.from}" is conditional; a plan runs every node it reaches, so only unconditional navigation ("${e.from}: <node>") can be imported`,
        ),
      );
      continue;
    }
    const seen = next.get(e.from);
    if (seen === undefined || PRECEDENCE[e.source] < PRECEDENCE[seen.source]) next.set(e.from, e);
    else if (seen.source === e.source) {
      errors.push(
        issueAt(
          'unsupported_navigation',
          e.line,
          `"${e.from}" already goes to "${String(seen.to)}" (line ${seen.line}); parallel or conditional edges cannot be imported`,
        ),
      );
    }
  }
  if (errors.length > 0) return importFailed(errors);

  const order: string[] = [];
  const visited = new Set<string>();
  let via: NavEntry | undefined = next.get(START);
  let current: string = via ? (via.to as string) : (nodes[0]?.name ?? END);
  while (current !== END) {
    const at = position.get(current);
    if (at === undefined) {
      const names = nodes.map((n) => n.name).join(', ');
      return importFailed([
        issueAt(
          'unknown_node',
          via?.line ?? 1,
          `navigation goes to "${current}", which is not a node (nodes: ${names})`,
        ),
      ]);
    }
    if (visited.has(current)) {
      return importFailed([
        issueAt(
          'navigation_loop',
          via?.line ?? nodes[at]!.line,
          `navigation returns to "${current}"; a loop cannot be imported (a plan is a DAG, each node runs once)`,
        ),
      ]);
    }
    visited.add(current);
    order.push(current);
    via = next.get(current);
    current = via ? (via.to as string) : (nodes[at + 1]?.name ?? END);
  }
  const unreached = nodes.filter((n) => !visited.has(n.name)).map((n) => n.name);
  return { ok: true, order, unreached };
}

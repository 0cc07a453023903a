/**
 * A TEA workflow's structure read from the YAML tree, with the line of everything: the nodes (named,
 * unique, valid step ids) and every navigation statement (`goto`, `navigation:`, `edges:`).
 */
import { isMap, isScalar, isSeq } from 'yaml';
import type { Node as YamlNode, YAMLMap } from 'yaml';
import { STEP_ID_PATTERN } from '../plan/model';
import type { NavEntry } from './tea-navigation';
import { issueAt } from './types';
import type { ImportIssue } from './types';

/** A workflow node and the line it starts on. */
export type Located = { name: string; line: number; node: YAMLMap };

/** The 1-based line a YAML node starts on (`fallback` when it has no position). */
export type LineOf = (n: YamlNode | null | undefined, fallback?: number) => number;

/** The nodes of `nodes:`; problems (no name, a duplicate, not a mapping) go to `errors`. */
export function locateNodes(root: YAMLMap, lineOf: LineOf, errors: ImportIssue[]): Located[] {
  const list = root.get('nodes', true);
  if (!isSeq(list) || list.items.length === 0) {
    errors.push(
      issueAt('bad_workflow', lineOf(list), 'nodes: must be a non-empty list of {name, uses, with}'),
    );
    return [];
  }
  const out: Located[] = [];
  const seen = new Map<string, number>();
  for (const item of list.items) {
    const line = lineOf(item as YamlNode);
    if (!isMap(item)) {
      errors.push(issueAt('bad_node', line, 'each node is a mapping with name: and uses: (or action:)'));
      continue;
    }
    const name = scalarString(item.get('name', true));
    if (name === null || !STEP_ID_PATTERN.test(name)) {
      const why =
        name === null
          ? 'a node needs a name:'
          : `node name "${name}" must be 1-64 letters, digits, "_", "." or "-"`;
      errors.push(issueAt('bad_node', line, why));
      continue;
    }
    const first = seen.get(name);
    if (first !== undefined) {
      errors.push(issueAt('duplicate_node', line, `node "${name}" is already defined on line ${first}`));
      continue;
    }
    seen.set(name, line);
    out.push({ name, line, node: item });
  }
  return out;
}

/** Every navigation statement, in the order written; malformed ones go to `errors`. */
export function navigationEntries(
  root: YAMLMap,
  nodes: readonly Located[],
  lineOf: LineOf,
  errors: ImportIssue[],
): NavEntry[] {
  const entries: NavEntry[] = [];
  for (const n of nodes) {
    const go = n.node.get('goto', true);
    if (go != null)
      entries.push({ from: n.name, to: scalarString(go) ?? go, line: lineOf(go, n.line), source: 'goto' });
  }
  const nav = root.get('navigation', true);
  if (nav != null && !isMap(nav)) {
    errors.push(
      issueAt(
        'bad_workflow',
        lineOf(nav),
        'navigation: must map each node to the next (a: b, …, z: __end__)',
      ),
    );
  } else if (isMap(nav)) {
    for (const pair of nav.items) {
      const from = scalarString(pair.key);
      const line = lineOf(pair.key as YamlNode);
      if (from === null) errors.push(issueAt('bad_workflow', line, 'navigation: keys are node names'));
      else
        entries.push({
          from,
          to: scalarString(pair.value) ?? pair.value,
          line,
          source: 'navigation',
        });
    }
  }
  const edges = root.get('edges', true);
  if (isSeq(edges)) {
    for (const edge of edges.items) {
      const line = lineOf(edge as YamlNode);
      const from = isMap(edge) ? scalarString(edge.get('from', true)) : null;
      const to = isMap(edge) ? scalarString(edge.get('to', true)) : null;
      const special = isMap(edge) && ['condition', 'when', 'type', 'fan_in'].some((k) => edge.has(k));
      if (from === null || to === null || special) {
        errors.push(
          issueAt(
            'unsupported_navigation',
            line,
            'only plain edges {from, to} can be imported (no conditions or parallel edges)',
          ),
        );
      } else entries.push({ from, to, line, source: 'edges' });
    }
  }
  return entries;
}

/** The trimmed text of a string scalar, else null. */
export function scalarString(n: unknown): string | null {
  return isScalar(n) && typeof n.value === 'string' ? n.value.trim() : null;
}

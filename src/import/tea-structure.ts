/**
 * A TEA workflow's structure read from the YAML tree, with the line of everything: the nodes (named,
 * unique, valid step ids).
 */
import { isMap, isScalar, isSeq } from 'yaml';
import type { Node as YamlNode, YAMLMap } from 'yaml';
import { STEP_ID_PATTERN } from '../plan/model';
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

/** The trimmed text of a string scalar, else null. */
export function scalarString(n: unknown): string | null {
  return isScalar(n) && typeof n.value === 'string' ? n.value.trim() : null;
}

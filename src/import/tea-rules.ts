/**
 * A TEA workflow's navigation as rules per node, following TEA's precedence: a node's `goto` (a node
 * name, or a list of `{if, to}` tried in order), then `navigation:` (the same forms), then the legacy
 * `edges:` (conditional ones — `condition:` or `when:` — in the order written, then the plain one),
 * else the next node in the list (the last one goes to `__end__`). `__start__` names the entry.
 * Parallel edges (`parallel:`, `fan_in:`) are refused with their line.
 */
import { isMap, isScalar, isSeq } from 'yaml';
import type { Node as YamlNode, YAMLMap } from 'yaml';
import { TEA_END, TEA_START } from '../plan/tea-meta';
import type { LineOf, Located } from './tea-structure';
import { scalarString } from './tea-structure';
import { issueAt } from './types';
import type { ImportIssue } from './types';

export type Rule = { to: string; if?: string; line: number };
export type Navigation = { entry: string; rules: Map<string, Rule[]>; conditional: boolean };

type Source = 'goto' | 'navigation' | 'edges';

/**
 * The rules of every node and the entry; problems go to `errors`.
 * @example navigationRules(root, nodes, lineOf, errors).rules.get('a') // [{ to: 'b', line: 9 }]
 */
export function navigationRules(
  root: YAMLMap,
  nodes: readonly Located[],
  lineOf: LineOf,
  errors: ImportIssue[],
): Navigation {
  const names = new Set(nodes.map((n) => n.name));
  const bySource: Record<Source, Map<string, Rule[]>> = {
    goto: new Map(),
    navigation: new Map(),
    edges: new Map(),
  };
  let entry: { to: string; line: number } | null = null;
  const add = (source: Source, from: string, rule: Rule) => {
    if (from === TEA_START) {
      if (rule.if !== undefined) {
        errors.push(
          issueAt('unsupported_navigation', rule.line, 'the entry (__start__) cannot be conditional'),
        );
      } else entry = { to: rule.to, line: rule.line };
      return;
    }
    if (!names.has(from)) {
      errors.push(
        issueAt('unknown_node', rule.line, `the ${source} entry names "${from}", which is not a node`),
      );
      return;
    }
    const list = bySource[source].get(from) ?? [];
    list.push(rule);
    bySource[source].set(from, list);
  };

  for (const n of nodes) {
    const go = n.node.get('goto', true);
    if (go != null) for (const r of targets(go, lineOf, n.line, errors, 'goto')) add('goto', n.name, r);
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
        for (const r of targets(pair.value, lineOf, line, errors, 'navigation')) add('navigation', from, r);
    }
  }
  const edges = root.get('edges', true);
  const plainEdges = new Map<string, Rule>();
  if (isSeq(edges)) {
    for (const edge of edges.items) {
      const line = lineOf(edge as YamlNode);
      const from = isMap(edge) ? scalarString(edge.get('from', true)) : null;
      const to = isMap(edge) ? scalarString(edge.get('to', true)) : null;
      if (!isMap(edge) || from === null || to === null) {
        errors.push(
          issueAt('bad_workflow', line, 'each edge is {from: <node>, to: <node>} (condition: optional)'),
        );
        continue;
      }
      if (edge.has('parallel') || edge.has('fan_in') || scalarString(edge.get('type', true)) === 'parallel') {
        errors.push(
          issueAt(
            'unsupported_navigation',
            line,
            'parallel edges (parallel:, fan_in:) cannot run here; use plan.execute with parallel: true',
          ),
        );
        continue;
      }
      const cond = conditionOf(edge, lineOf, errors);
      if (cond === false) continue;
      if (cond === null) {
        const seen = plainEdges.get(from);
        if (seen && from !== TEA_START) {
          errors.push(
            issueAt(
              'unsupported_navigation',
              line,
              `"${from}" already goes to "${seen.to}" (line ${seen.line}); parallel edges cannot run here`,
            ),
          );
          continue;
        }
        plainEdges.set(from, { to, line });
        if (from === TEA_START) add('edges', from, { to, line });
      } else add('edges', from, { to, if: cond, line });
    }
    // Conditional edges are tried first, in the order written; the plain edge is the fallback.
    for (const [from, rule] of plainEdges) if (from !== TEA_START) add('edges', from, rule);
  }

  const rules = new Map<string, Rule[]>();
  nodes.forEach((n, i) => {
    const chosen = bySource.goto.get(n.name) ?? bySource.navigation.get(n.name) ?? bySource.edges.get(n.name);
    rules.set(n.name, chosen ?? [{ to: nodes[i + 1]?.name ?? TEA_END, line: n.line }]);
  });
  for (const list of rules.values()) {
    for (const r of list) {
      if (r.to !== TEA_END && !names.has(r.to)) {
        errors.push(
          issueAt(
            'unknown_node',
            r.line,
            `navigation goes to "${r.to}", which is not a node (nodes: ${[...names].join(', ')})`,
          ),
        );
      }
    }
  }
  const first: { to: string; line: number } | null = entry;
  const start = first ?? { to: nodes[0]?.name ?? TEA_END, line: 1 };
  if (start.to !== TEA_END && !names.has(start.to)) {
    errors.push(issueAt('unknown_node', start.line, `__start__ goes to "${start.to}", which is not a node`));
  }
  const conditional = [...rules.values()].some((list) => list.some((r) => r.if !== undefined));
  return { entry: start.to, rules, conditional };
}

/** A `goto` / `navigation` value: a node name, or a list of `{if?, to}`. */
function targets(value: unknown, lineOf: LineOf, line: number, errors: ImportIssue[], what: Source): Rule[] {
  const name = scalarString(value);
  if (name !== null) return [{ to: name, line: lineOf(value as YamlNode, line) }];
  if (isSeq(value)) {
    const out: Rule[] = [];
    for (const item of value.items) {
      const at = lineOf(item as YamlNode, line);
      const to = isMap(item) ? scalarString(item.get('to', true)) : null;
      const cond = isMap(item) ? item.get('if', true) : undefined;
      if (to === null || (cond != null && !isScalar(cond))) {
        errors.push(
          issueAt('bad_workflow', at, `each ${what} rule is {if: <condition>, to: <node>} (if: optional)`),
        );
        continue;
      }
      out.push(
        cond == null ? { to, line: at } : { to, if: String((cond as { value: unknown }).value), line: at },
      );
    }
    return out;
  }
  errors.push(
    issueAt('bad_workflow', lineOf(value as YamlNode, line), `${what}: is a node name or a list of {if, to}`),
  );
  return [];
}

/** An edge's `condition:` (a string, or `{type: expression, value}`) or `when:`; null: none; false: bad. */
function conditionOf(edge: YAMLMap, lineOf: LineOf, errors: ImportIssue[]): string | null | false {
  const c: unknown = edge.get('condition', true) ?? edge.get('when', true);
  if (c == null) return null;
  if (isScalar(c)) return String(c.value);
  if (isMap(c) && scalarString(c.get('type', true)) === 'expression') {
    const value: unknown = c.get('value', true);
    if (isScalar(value)) return String(value.value);
  }
  errors.push(
    issueAt(
      'unsupported_navigation',
      lineOf(c as YamlNode),
      'condition: is an expression, or {type: expression, value: <expression>}',
    ),
  );
  return false;
}

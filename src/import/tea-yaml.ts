/**
 * TEA YAML workflows (seed 001): `name`, `state_schema`, `variables`, `nodes: [{name, uses|action,
 * with, output?, goto?}]` and `navigation: {a: b, …, z: __end__}` (or legacy `edges:`) converted to a
 * plan. Steps follow the navigation order, each depending on the one before it; `with` is the
 * parameters, with templates rewritten (tea-templates.ts); each node's result goes to
 * `state.<node name>`, or `state.<output>` (tea-results.ts says how later reads find merged keys).
 * The run's `input` is the workflow's initial state.
 */
import { LineCounter, isMap, isScalar, isSeq, parseDocument } from 'yaml';
import type { Document, Node as YamlNode, YAMLMap } from 'yaml';
import { STEP_ID_PATTERN } from '../plan/model';
import type { PlanStepInput } from '../plan/model';
import { formatOutputPath } from '../plan/references';
import type { PathSegment } from '../plan/references';
import { ACTION_RESULT_KEYS, ACTION_STATE_DEFAULTS } from './tea-results';
import { executionOrder } from './tea-navigation';
import type { NavEntry } from './tea-navigation';
import { rewriteTemplate } from './tea-templates';
import { FAILED, yamlValue } from './tea-values';
import type { TemplateScope } from './tea-templates';
import { importFailed, issueAt } from './types';
import type { ImportIssue, ImportResult } from './types';

/** A key of the initial state the workflow reads (it must be in the run's `input`). */
export type StateRead = { key: string; node: string; line: number };

/** A converted workflow also says which initial-state keys it reads. */
export type TeaImportResult =
  (Extract<ImportResult, { ok: true }> & { stateReads: StateRead[] }) | Extract<ImportResult, { ok: false }>;

type Located = { name: string; line: number; node: YAMLMap };

const UNSUPPORTED_NODE_KEYS: Record<string, string> = {
  run: 'inline code (run:) cannot run here; call a registered tool with uses:/action:',
  script: 'inline code (script:) cannot run here; call a registered tool with uses:/action:',
  steps: 'multi-step nodes (steps:) cannot be imported; make each step a node',
};

/**
 * Converts a TEA YAML workflow to a plan.
 * @example
 * const r = convertTeaYaml(`
 * nodes:
 *   - name: greet
 *     uses: demo.echo
 *     with: { text: "Hello {{ state.name }}" }
 * `);
 * // r.plan.steps[0] → { id: 'greet', action: 'demo.echo', parameters: { text: 'Hello {{ state.name }}' },
 * //                     output_path: 'state.greet', … }; r.stateReads → [{ key: 'name', … }]
 */
export function convertTeaYaml(source: string): TeaImportResult {
  const counter = new LineCounter();
  const doc = parseDocument(source, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return importFailed(
      doc.errors.map((e) => {
        const pos = counter.linePos(e.pos[0]);
        return issueAt('yaml_syntax', pos.line, e.message.split('\n')[0] ?? e.message, pos.col);
      }),
    );
  }
  const lineOf = (n: YamlNode | null | undefined, fallback = 1): number =>
    n?.range ? counter.linePos(n.range[0]).line : fallback;
  const root = doc.contents;
  if (!isMap(root)) {
    return importFailed([
      issueAt('bad_workflow', lineOf(root), 'a TEA workflow is a mapping with a nodes: list'),
    ]);
  }
  const errors: ImportIssue[] = [];
  const nodes = locateNodes(root, lineOf, errors);
  const entries = navigationEntries(root, nodes, lineOf, errors);
  // With the structure broken, still read every good node in list order, to report all problems at once.
  const order = errors.length > 0 ? null : executionOrder(nodes, entries);
  if (order && !order.ok) return order;

  const variablesNode = root.get('variables', true);
  const variables = isMap(variablesNode) ? (variablesNode.toJS(doc) as Record<string, unknown>) : {};
  const producers = new Map<string, readonly PathSegment[]>();
  const stateReads: StateRead[] = [];
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const steps: PlanStepInput[] = [];
  const lines: Record<string, number> = {};
  let previous: string | null = null;
  for (const name of order?.order ?? nodes.map((n) => n.name)) {
    const located = byName.get(name)!;
    const scope: TemplateScope = {
      variables,
      stateKey: (key) => {
        const at = producers.get(key);
        if (at) return at;
        if (!stateReads.some((r) => r.key === key)) stateReads.push({ key, node: name, line: located.line });
        return [key];
      },
    };
    const step = convertNode(located, previous, scope, producers, doc, lineOf, errors);
    if (step === null) continue;
    steps.push(step.step);
    lines[name] = located.line;
    previous = name;
    if (step.output !== null) producers.set(step.output, [step.output]);
    else {
      producers.set(name, [name]);
      for (const key of ACTION_RESULT_KEYS[step.step.action!] ?? []) producers.set(key, [name, key]);
    }
  }
  if (errors.length > 0 || order === null) return importFailed(errors);

  const metadata: Record<string, unknown> = { imported_from: 'tea-yaml' };
  const workflow = scalarString(root.get('name', true));
  if (workflow !== null) metadata.workflow = workflow;
  const schema = root.get('state_schema', true);
  if (isMap(schema)) metadata.state_schema = schema.toJS(doc);
  if (order.unreached.length > 0) metadata.unreached_nodes = order.unreached;
  const goal = scalarString(root.get('description', true)) ?? workflow ?? '';
  return { ok: true, plan: { goal, steps, metadata }, lines, stateReads };
}

function locateNodes(
  root: YAMLMap,
  lineOf: (n: YamlNode | null | undefined, fallback?: number) => number,
  errors: ImportIssue[],
): Located[] {
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

function navigationEntries(
  root: YAMLMap,
  nodes: readonly Located[],
  lineOf: (n: YamlNode | null | undefined, fallback?: number) => number,
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

function convertNode(
  n: Located,
  previous: string | null,
  scope: TemplateScope,
  produced: ReadonlyMap<string, unknown>,
  doc: Document,
  lineOf: (n: YamlNode | null | undefined, fallback?: number) => number,
  errors: ImportIssue[],
): { step: PlanStepInput; output: string | null } | null {
  for (const key of Object.keys(UNSUPPORTED_NODE_KEYS)) {
    if (n.node.has(key)) {
      errors.push(issueAt('unsupported_node', n.line, `node "${n.name}": ${UNSUPPORTED_NODE_KEYS[key]}`));
      return null;
    }
  }
  const action = scalarString(n.node.get('uses', true)) ?? scalarString(n.node.get('action', true));
  if (action === null || action === '') {
    errors.push(
      issueAt('bad_node', n.line, `node "${n.name}" needs an action: uses: <tool> (or action: <tool>)`),
    );
    return null;
  }
  const withNode = n.node.get('with', true);
  if (withNode != null && !isMap(withNode)) {
    errors.push(
      issueAt(
        'bad_node',
        lineOf(withNode, n.line),
        `node "${n.name}": with: must be a mapping of parameters`,
      ),
    );
    return null;
  }
  const parameters: Record<string, unknown> = {};
  if (isMap(withNode)) {
    const converted = yamlValue(withNode, { scope, doc, lineOf, nodeName: n.name, errors });
    if (converted === FAILED) return null;
    Object.assign(parameters, converted);
  }
  for (const [key, need] of Object.entries(ACTION_STATE_DEFAULTS[action] ?? {})) {
    if (Object.hasOwn(parameters, key) || (need === 'optional' && !produced.has(key))) continue;
    const r = rewriteTemplate(`{{ state.${key} }}`, scope);
    if (r.ok) parameters[key] = r.value;
  }
  const outputNode = n.node.get('output', true);
  const output = outputNode == null ? null : scalarString(outputNode);
  if (outputNode != null && (output === null || !/^[A-Za-z_][\w-]*$/.test(output))) {
    errors.push(
      issueAt('bad_node', lineOf(outputNode, n.line), `node "${n.name}": output: must be a state key name`),
    );
    return null;
  }
  const step: PlanStepInput = {
    id: n.name,
    description: scalarString(n.node.get('description', true)) ?? n.name,
    action,
    parameters,
    dependencies: previous === null ? [] : [previous],
    output_path: formatOutputPath([output ?? n.name], null),
  };
  return { step, output };
}

function scalarString(n: unknown): string | null {
  return isScalar(n) && typeof n.value === 'string' ? n.value.trim() : null;
}

/**
 * TEA YAML workflows (seed 001): `name`, `state_schema`, `variables`, `nodes: [{name, uses|action,
 * with, output?, goto?}]` and `navigation: {a: b, …, z: __end__}` (or legacy `edges:`) converted to a
 * plan. Steps follow the navigation order, each depending on the one before it; `with` is the
 * parameters, with templates rewritten (tea-templates.ts); a planning action's result is merged
 * into state (`output_path: "state"`), any other node's goes to `state.<node name>`, and a node with
 * `output:` writes `state.<output>` (tea-results.ts says which and why). The run's `input` is the
 * workflow's initial state.
 */
import { LineCounter, isMap, parseDocument } from 'yaml';
import type { Document } from 'yaml';
import { MAX_NESTING_DEPTH } from '../nesting';
import type { PlanStepInput } from '../plan/model';
import { formatOutputPath } from '../plan/references';
import type { PathSegment } from '../plan/references';
import { ACTION_RESULT_KEYS, ACTION_STATE_DEFAULTS, MERGED_ACTIONS } from './tea-results';
import { executionOrder } from './tea-navigation';
import { locateNodes, navigationEntries, scalarString } from './tea-structure';
import type { LineOf, Located } from './tea-structure';
import { rewriteTemplate } from './tea-templates';
import { FAILED, yamlValue } from './tea-values';
import type { TemplateScope } from './tea-templates';
import { importFailed, issueAt } from './types';
import type { ImportIssue, ImportResult } from './types';
import { LineIndex } from './line-index';
import { yamlTooDeep } from './yaml-depth';

/** A key of the initial state the workflow reads (it must be in the run's `input`). */
export type StateRead = { key: string; node: string; line: number };

/** A converted workflow also says which initial-state keys it reads. */
export type TeaImportResult =
  (Extract<ImportResult, { ok: true }> & { stateReads: StateRead[] }) | Extract<ImportResult, { ok: false }>;

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
  const deep = yamlTooDeep(source, MAX_NESTING_DEPTH);
  if (deep) {
    const at = new LineIndex(source).at(deep.offset);
    const message = `sequences and mappings nest more than ${MAX_NESTING_DEPTH} levels deep here; the limit is ${MAX_NESTING_DEPTH}`;
    return importFailed([issueAt('too_deep', at.line, message, at.column)]);
  }
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
  try {
    // Expands every alias once under the library's budget, so an alias bomb is refused here and the
    // walks below (which expand aliases again) stay bounded.
    doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    return importFailed([issueAt('yaml_syntax', 1, e instanceof Error ? e.message : String(e))]);
  }
  const lineOf: LineOf = (n, fallback = 1) => (n?.range ? counter.linePos(n.range[0]).line : fallback);
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
    const keys = ACTION_RESULT_KEYS[step.step.action!] ?? [];
    if (step.output !== null) producers.set(step.output, [step.output]);
    else if (step.merged) for (const key of keys) producers.set(key, [key]);
    else {
      producers.set(name, [name]);
      for (const key of keys) producers.set(key, [name, key]);
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

function convertNode(
  n: Located,
  previous: string | null,
  scope: TemplateScope,
  produced: ReadonlyMap<string, unknown>,
  doc: Document,
  lineOf: LineOf,
  errors: ImportIssue[],
): { step: PlanStepInput; output: string | null; merged: boolean } | null {
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
  const merged = output === null && MERGED_ACTIONS.has(action);
  const step: PlanStepInput = {
    id: n.name,
    description: scalarString(n.node.get('description', true)) ?? n.name,
    action,
    parameters,
    dependencies: previous === null ? [] : [previous],
    output_path: formatOutputPath(merged ? [] : [output ?? n.name], null),
  };
  return { step, output, merged };
}

/**
 * One TEA node as a plan step: its action (`uses:` or `action:`), its `with:` kept as written (in
 * `metadata.tea.params`, rendered when the node runs), and where its result goes (`output:`). Nodes
 * that cannot run here (inline code, subgraphs, other node types) are refused with the reason.
 */
import { isMap } from 'yaml';
import type { PlanStepInput } from '../plan/model';
import type { TeaMeta } from '../plan/tea-meta';
import { ACTION_STATE_DEFAULTS, RAW_PARAMETERS } from './tea-results';
import { scalarString } from './tea-structure';
import type { LineOf, Located } from './tea-structure';
import { FAILED, yamlValue } from './tea-values';
import type { ValueContext } from './tea-values';
import { issueAt } from './types';
import type { ImportIssue } from './types';

const UNSUPPORTED_NODE_KEYS: Record<string, string> = {
  run: 'inline code (run:, Python, Lua or Prolog) cannot run here; call a registered tool with uses:/action:',
  script: 'inline code (script:) cannot run here; call a registered tool with uses:/action:',
  steps: 'multi-step nodes (steps:) cannot run here; make each step a node',
  subgraph: 'subgraphs (subgraph:) cannot run here',
};

/** Converts node `n` to its step, recording its parameters in `meta`; null (and `errors`) when it cannot run. */
export function convertNode(
  n: Located,
  meta: TeaMeta,
  { resolve, budget }: Pick<ValueContext, 'resolve' | 'budget'>,
  lineOf: LineOf,
  errors: ImportIssue[],
): PlanStepInput | null {
  for (const key of Object.keys(UNSUPPORTED_NODE_KEYS)) {
    if (n.node.has(key)) {
      errors.push(
        issueAt(
          'unsupported_node',
          lineOf(n.node.get(key, true), n.line),
          `node "${n.name}": ${UNSUPPORTED_NODE_KEYS[key]}`,
        ),
      );
      return null;
    }
  }
  const type = scalarString(n.node.get('type', true));
  if (type !== null && type !== 'action') {
    errors.push(
      issueAt(
        'unsupported_node',
        n.line,
        `node "${n.name}": type: ${type} nodes cannot run here; use an action node (uses:)`,
      ),
    );
    return null;
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
  const lines: Record<string, number> = {};
  const params: Record<string, unknown> = {};
  if (isMap(withNode)) {
    const converted = yamlValue(withNode, { resolve, budget, lineOf, nodeName: n.name, errors, lines });
    if (converted === FAILED) return null;
    Object.assign(params, converted);
  }
  // TEA's planning actions read these from the state when the node leaves them out.
  for (const [key, template] of Object.entries(ACTION_STATE_DEFAULTS[action] ?? {})) {
    if (!Object.hasOwn(params, key)) params[key] = template;
  }
  meta.params[n.name] = params;
  if (Object.keys(lines).length > 0) meta.lines[n.name] = lines;
  const raw = RAW_PARAMETERS[action];
  if (raw) meta.raw[n.name] = [...raw];

  const outputNode = n.node.get('output', true) ?? n.node.get('output_key', true);
  let output_path = 'state';
  if (outputNode != null) {
    const key = scalarString(outputNode);
    if (key !== null && /^[A-Za-z_][\w-]*$/.test(key)) output_path = `state.${key}`;
    else if (isMap(outputNode)) {
      const mapping = yamlValue(outputNode, { resolve, budget, lineOf, nodeName: n.name, errors, lines: {} });
      if (mapping === FAILED) return null;
      meta.outputs[n.name] = mapping as Record<string, unknown>;
    } else {
      errors.push(
        issueAt(
          'bad_node',
          lineOf(outputNode, n.line),
          `node "${n.name}": output: is a state key name or a mapping of keys to templates`,
        ),
      );
      return null;
    }
  }
  return {
    id: n.name,
    description: scalarString(n.node.get('description', true)) ?? n.name,
    action,
    parameters: {},
    dependencies: [],
    output_path,
  };
}

/**
 * TEA YAML workflows (seed 001; TEA's own YAML engine): `name`, `description`, `settings`,
 * `variables`, `state_schema`, `max_iterations`, `nodes: [{name, uses|action, with, output?, goto?,
 * condition?}]`, and `navigation:` / legacy `edges:`. Each node becomes a step whose `with:` is kept
 * as written (in `metadata.tea.params`): Jinja2 templates, rendered when the node runs against the
 * state then (src/engine/begin-attempt.ts). Results land as TEA puts them (tea-results.ts).
 *
 * A workflow whose navigation has no conditions is a chain in navigation order (each step depends on
 * the one before). One with `condition:` on nodes or edges, a conditional `goto`, or a loop runs as a
 * graph run: its steps have no dependencies and the run goes from node to node as the state decides
 * (src/engine/tea-navigation.ts), at most `max_iterations` (default 25) visits of any node.
 */
import { LineCounter, isMap, isScalar, parseDocument } from 'yaml';
import type { Document, YAMLMap } from 'yaml';
import { MAX_NESTING_DEPTH } from '../nesting';
import type { PlanStepInput } from '../plan/model';
import { DEFAULT_MAX_ITERATIONS, TEA_END, type TeaMeta } from '../plan/tea-meta';
import { MAX_ALIASES, MAX_EXPANDED_CHARS, refuseUnparsed, type TeaRefusal } from './tea-limits';
import { convertNode } from './tea-node';
import { navigationRules, type Navigation } from './tea-rules';
import { locateNodes, scalarString } from './tea-structure';
import type { LineOf, Located } from './tea-structure';
import { aliasResolver } from './tea-values';
import type { ValueContext } from './tea-values';
import { importFailed, issueAt } from './types';
import type { ImportIssue, ImportResult } from './types';
import { scanYaml } from './yaml-scan';
import { expandedSizeOver } from './expanded-size';
import { settingsEnvNames } from '../plan/tea-settings';

/** A key `state_schema` declares, and its line (the API's `state_keys`; TEA reads a missing key as None). */
export type StateRead = { key: string; node: string; line: number };

/**
 * A converted workflow also says which initial-state keys its `state_schema` declares. A workflow
 * refused for having more steps than `maxSteps` says so (`tooManySteps`): its one issue is a
 * validation finding (`too_many_steps`), not a problem with the text.
 */
export type TeaImportResult =
  (Extract<ImportResult, { ok: true }> & { stateReads: StateRead[] }) | TeaRefusal;

export type TeaImportOptions = {
  /** The run's `max_steps`: a workflow sure to have more steps is refused before it is parsed. */
  maxSteps?: number;
};

/** Scalars that navigate (`goto:`, `navigation:`, `edges:`): with them, some nodes may never run. */
const NAVIGATION: ReadonlySet<string> = new Set(['goto', 'navigation', 'edges']);

const UNSUPPORTED_TOP_KEYS: Record<string, string> = {
  imports: 'imports: loads Python modules, which cannot run here; register the actions as tools',
  extraction_schema: 'extraction_schema: (Prolog validation) cannot run here',
  prolog: 'Prolog cannot run here',
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
 * // r.plan.steps[0] → { id: 'greet', action: 'demo.echo', parameters: {}, output_path: 'state', … };
 * // r.plan.metadata.tea.params.greet → { text: 'Hello {{ state.name }}' }
 */
export function convertTeaYaml(source: string, opts: TeaImportOptions = {}): TeaImportResult {
  const scan = scanYaml(source, { maxDepth: MAX_NESTING_DEPTH, maxAliases: MAX_ALIASES, words: NAVIGATION });
  const refused = refuseUnparsed(source, scan, opts.maxSteps);
  if (refused) return refused;
  const aliases = scan.aliases.count;
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
  for (const [key, why] of Object.entries(UNSUPPORTED_TOP_KEYS)) {
    const at = root.items.find((p) => isScalar(p.key) && p.key.value === key);
    if (at) errors.push(issueAt('unsupported_node', lineOf(at.key), why));
  }
  const nodes = locateNodes(root, lineOf, errors);
  const nav = navigationRules(root, nodes, lineOf, errors);
  const meta: TeaMeta = {
    settings: mapOf(root, 'settings', doc),
    variables: mapOf(root, 'variables', doc),
    lines: {},
    raw: {},
    params: {},
    outputs: {},
    env_names: [],
  };
  const schema = root.get('state_schema', true);
  if (isMap(schema)) meta.state_schema = schema.toJS(doc) as Record<string, unknown>;
  meta.env_names = settingsEnvNames(meta.settings);
  const maxIterations = maxIterationsOf(root, meta.settings, lineOf, errors);

  const resolve = aliasResolver(doc);
  const budget: ValueContext['budget'] = { left: MAX_EXPANDED_CHARS };
  const conditions = new Map<string, string>();
  const converted: { step: PlanStepInput; line: number }[] = [];
  for (const n of nodes) {
    const step = convertNode(n, meta, { resolve, budget }, lineOf, errors);
    if (step === null) continue;
    const cond = n.node.get('condition', true);
    if (cond != null) {
      if (isScalar(cond)) conditions.set(n.name, String(cond.value));
      else
        errors.push(
          issueAt('bad_node', lineOf(cond, n.line), `node "${n.name}": condition: is an expression`),
        );
    }
    converted.push({ step, line: n.line });
  }
  if (errors.length > 0) return importFailed(errors);

  const graphRun = nav.conditional || conditions.size > 0;
  const lines: Record<string, number> = {};
  const steps: PlanStepInput[] = [];
  const metadata: Record<string, unknown> = { imported_from: 'tea-yaml' };
  if (graphRun) {
    meta.graph = {
      entry: nav.entry,
      max_iterations: maxIterations,
      nodes: Object.fromEntries(
        nodes.map((n) => {
          const next = (nav.rules.get(n.name) ?? []).map((r) =>
            r.if === undefined ? { to: r.to } : { to: r.to, if: r.if },
          );
          const condition = conditions.get(n.name);
          return [n.name, condition === undefined ? { next } : { condition, next }];
        }),
      ),
    };
    for (const c of converted) {
      steps.push({ ...c.step, dependencies: [] });
      lines[c.step.id] = c.line;
    }
  } else {
    const order = chain(nodes, nav);
    if (!order.ok) return order;
    const byName = new Map(converted.map((c) => [c.step.id, c]));
    let previous: string | null = null;
    for (const name of order.order) {
      const c = byName.get(name)!;
      steps.push({ ...c.step, dependencies: previous === null ? [] : [previous] });
      lines[name] = c.line;
      previous = name;
    }
    // A set: the list's includes() made this quadratic (a 5 MiB workflow of 42,000 nodes: 20 s of CPU).
    const run = new Set(order.order);
    for (const name of Object.keys(meta.params)) {
      if (run.has(name)) continue;
      delete meta.params[name];
      delete meta.lines[name];
    }
    if (order.unreached.length > 0) metadata.unreached_nodes = order.unreached;
  }
  const workflow = scalarString(root.get('name', true));
  if (workflow !== null) metadata.workflow = workflow;
  if (meta.state_schema) metadata.state_schema = meta.state_schema;
  metadata.tea = meta;
  // Aliases share their anchor's value until it is written out: a workflow whose aliases write out
  // larger than a request could have carried is refused, not stored and sent at that size.
  if (aliases > 0 && expandedSizeOver(metadata, MAX_EXPANDED_CHARS)) {
    const message = `its ${aliases} aliases (*name) write the workflow out to more than ${MAX_EXPANDED_CHARS} characters, the most a request carries: use large anchors fewer times`;
    return importFailed([issueAt('yaml_syntax', 1, message)]);
  }
  const goal = scalarString(root.get('description', true)) ?? workflow ?? '';
  // The keys state_schema declares, with their lines (the API lists them; input values are checked against them).
  const stateReads = isMap(schema)
    ? schema.items.map((p) => ({
        key: String(scalarString(p.key) ?? ''),
        node: '',
        line: lineOf(p.key as never),
      }))
    : [];
  return { ok: true, plan: { goal, steps, metadata }, lines, stateReads };
}

/** The nodes in navigation order when no rule is conditional; a loop would never end, so it is refused. */
function chain(
  nodes: readonly Located[],
  nav: Navigation,
): { ok: true; order: string[]; unreached: string[] } | Extract<ImportResult, { ok: false }> {
  const order: string[] = [];
  const seen = new Set<string>();
  let at = nav.entry;
  let via = 1;
  while (at !== TEA_END) {
    if (seen.has(at)) {
      return importFailed([
        issueAt(
          'navigation_loop',
          via,
          `navigation returns to "${at}" with no condition to leave the loop, so it would never end; put a condition on the edge or goto that closes it`,
        ),
      ]);
    }
    seen.add(at);
    order.push(at);
    const rule = nav.rules.get(at)?.[0];
    via = rule?.line ?? via;
    at = rule?.to ?? TEA_END;
  }
  return { ok: true, order, unreached: nodes.filter((n) => !seen.has(n.name)).map((n) => n.name) };
}

function mapOf(root: YAMLMap, key: string, doc: Document): Record<string, unknown> {
  const node = root.get(key, true);
  return isMap(node) ? (node.toJS(doc) as Record<string, unknown>) : {};
}

function maxIterationsOf(
  root: YAMLMap,
  settings: Record<string, unknown>,
  lineOf: LineOf,
  errors: ImportIssue[],
): number {
  const node = root.get('max_iterations', true);
  const v = node != null && isScalar(node) ? node.value : settings.max_iterations;
  if (v === undefined) return DEFAULT_MAX_ITERATIONS;
  if (typeof v === 'number' && Number.isInteger(v) && v >= 1) return v;
  errors.push(issueAt('bad_workflow', lineOf(node), 'max_iterations: is a whole number of at least 1'));
  return DEFAULT_MAX_ITERATIONS;
}

/**
 * A node's `with:` as plain data, read from the YAML tree (not from `toJS`) so each string's line is
 * known: every template is parsed here, and a syntax error names the node and its line; the lines are
 * kept so an error when the template renders at run time can name its line too.
 */
import type { ErrorCode } from '../error-codes';
import { isAlias, isMap, isScalar, isSeq, visit } from 'yaml';
import type { Alias, Document, Node as YamlNode } from 'yaml';
import { checkTemplate, isTemplate } from '../plan/jinja';
import { issueAt } from './types';
import type { ImportIssue } from './types';

/** Returned after the problem has been added to `errors`. */
export const FAILED: unique symbol = Symbol('failed');

export type ValueContext = {
  /** The node an alias stands for ({@link aliasResolver}). */
  resolve: (alias: Alias) => unknown;
  /**
   * Characters (and values) the workflow's parameters may still come to: an alias builds its
   * anchor's value again, so without a bound 100 uses of a large anchor built it 100 times.
   */
  budget: { left: number; exceeded?: true };
  lineOf: (n: YamlNode | null | undefined, fallback?: number) => number;
  nodeName: string;
  errors: ImportIssue[];
  /** Parameter path (`messages.1.content`) → the line its text starts on. */
  lines: Record<string, number>;
};

/** Deeper than this is a runaway (an alias that contains itself), not a parameter. */
const MAX_DEPTH = 64;

/**
 * The value of a YAML node, its templates checked, or FAILED (the reason is in `ctx.errors`).
 * @example yamlValue(doc.get('with', true), ctx) // { goal: '{{ state.user_goal }}', strategy: 'flat' }
 */
export function yamlValue(node: unknown, ctx: ValueContext, depth = 0, path = ''): unknown {
  if (depth > MAX_DEPTH)
    return fail(ctx, node, 'bad_node', 'with: is nested too deeply (does an alias contain itself?)');
  if (node == null) return null;
  const { budget } = ctx;
  if (budget.exceeded) return FAILED;
  budget.left -= isScalar(node) && typeof node.value === 'string' ? node.value.length + 1 : 1;
  if (budget.left < 0) {
    budget.exceeded = true;
    return fail(
      ctx,
      node,
      'yaml_syntax',
      'with its aliases (*name) written out, the workflow comes to more than a request carries (5 MiB): use large anchors fewer times',
    );
  }
  if (isAlias(node)) return yamlValue(ctx.resolve(node), ctx, depth + 1, path);
  if (isScalar(node)) {
    if (typeof node.value !== 'string') return node.value;
    // Block scalars start on the line after their `|`.
    const block = node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED' ? 1 : 0;
    const start = ctx.lineOf(node) + block;
    if (isTemplate(node.value)) {
      ctx.lines[path] = start;
      const r = checkTemplate(node.value);
      if (!r.ok) {
        ctx.errors.push(
          issueAt(
            'template_error',
            start + r.line - 1,
            `node "${ctx.nodeName}": the template in with.${path} does not parse: ${r.message}`,
          ),
        );
        return FAILED;
      }
    }
    return node.value;
  }
  if (isSeq(node)) {
    const out: unknown[] = [];
    let failed = false;
    node.items.forEach((item, i) => {
      const v = yamlValue(item, ctx, depth + 1, path ? `${path}.${i}` : String(i));
      if (v === FAILED) failed = true;
      else out.push(v);
    });
    return failed ? FAILED : out;
  }
  if (isMap(node)) {
    const out: Record<string, unknown> = {};
    let failed = false;
    for (const pair of node.items) {
      if (!isScalar(pair.key)) return fail(ctx, pair.key, 'bad_node', 'keys must be plain text');
      const key = String(pair.key.value);
      const v = yamlValue(pair.value, ctx, depth + 1, path ? `${path}.${key}` : key);
      if (v === FAILED) {
        failed = true;
        continue;
      }
      // defineProperty: a key such as `__proto__` is data, not the prototype.
      Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
    }
    return failed ? FAILED : out;
  }
  return null;
}

/**
 * What each alias of `doc` stands for — the last node before it with its anchor, as YAML and the
 * library's `Alias.resolve` say — found in one walk of the document. `Alias.resolve(doc)` walks the
 * whole document for each alias: a workflow of many aliases took minutes.
 */
export function aliasResolver(doc: Document): (alias: Alias) => unknown {
  const targets = new Map<Alias, YamlNode>();
  const anchors = new Map<string, YamlNode>();
  visit(doc, {
    Node: (_key, node) => {
      if (isAlias(node)) {
        const target = anchors.get(node.source);
        if (target !== undefined) targets.set(node, target);
      } else if (node.anchor) anchors.set(node.anchor, node);
    },
  });
  return (alias) => targets.get(alias);
}

function fail(ctx: ValueContext, node: unknown, code: ErrorCode, message: string): typeof FAILED {
  ctx.errors.push(issueAt(code, ctx.lineOf(node as YamlNode), `node "${ctx.nodeName}": ${message}`));
  return FAILED;
}

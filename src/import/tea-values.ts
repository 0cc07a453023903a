/**
 * A node's `with:` as plain data, read from the YAML tree (not from `toJS`) so a template problem
 * can name the line it is on. Every string goes through the template rewriter.
 */
import type { ErrorCode } from '../error-codes';
import { isAlias, isMap, isScalar, isSeq } from 'yaml';
import type { Document, Node as YamlNode } from 'yaml';
import { rewriteTemplate } from './tea-templates';
import type { TemplateScope } from './tea-templates';
import { issueAt } from './types';
import type { ImportIssue } from './types';

/** Returned after the problem has been added to `errors`. */
export const FAILED: unique symbol = Symbol('failed');

export type ValueContext = {
  scope: TemplateScope;
  doc: Document;
  lineOf: (n: YamlNode | null | undefined, fallback?: number) => number;
  nodeName: string;
  errors: ImportIssue[];
};

/** Deeper than this is a runaway (an alias that contains itself), not a parameter. */
const MAX_DEPTH = 64;

/**
 * The value of a YAML node with templates rewritten, or FAILED (the reason is in `ctx.errors`).
 * @example yamlValue(doc.get('with', true), ctx) // { goal: '{{ state.user_goal }}', strategy: 'flat' }
 */
export function yamlValue(node: unknown, ctx: ValueContext, depth = 0): unknown {
  if (depth > MAX_DEPTH)
    return fail(ctx, node, 'bad_node', 'with: is nested too deeply (does an alias contain itself?)');
  if (node == null) return null;
  if (isAlias(node)) return yamlValue(node.resolve(ctx.doc), ctx, depth + 1);
  if (isScalar(node)) {
    if (typeof node.value !== 'string') return node.value;
    const r = rewriteTemplate(node.value, ctx.scope);
    if (r.ok) return r.value;
    // Block scalars start on the line after their `|`; count the lines before the problem.
    const block = node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED' ? 1 : 0;
    const line = ctx.lineOf(node) + block + (node.value.slice(0, r.at).match(/\n/g)?.length ?? 0);
    ctx.errors.push(issueAt('unsupported_template', line, `node "${ctx.nodeName}": ${r.message}`));
    return FAILED;
  }
  if (isSeq(node)) {
    const out: unknown[] = [];
    for (const item of node.items) {
      const v = yamlValue(item, ctx, depth + 1);
      if (v === FAILED) return FAILED;
      out.push(v);
    }
    return out;
  }
  if (isMap(node)) {
    const out: Record<string, unknown> = {};
    for (const pair of node.items) {
      if (!isScalar(pair.key)) return fail(ctx, pair.key, 'bad_node', 'keys must be plain text');
      const v = yamlValue(pair.value, ctx, depth + 1);
      if (v === FAILED) return FAILED;
      // defineProperty: a key such as `__proto__` is data, not the prototype.
      Object.defineProperty(out, String(pair.key.value), {
        value: v,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return null;
}

function fail(ctx: ValueContext, node: unknown, code: ErrorCode, message: string): typeof FAILED {
  ctx.errors.push(issueAt(code, ctx.lineOf(node as YamlNode), `node "${ctx.nodeName}": ${message}`));
  return FAILED;
}

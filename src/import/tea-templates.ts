/**
 * TEA's Jinja templates in `with:` values, rewritten into plan references. What a plan can express
 * is accepted: `{{ state.<path> }}` (becomes a state reference), `{{ variables.<path> }}` (the
 * workflow's constant, inlined), the `tojson` filter (a reference inside text already interpolates
 * objects as JSON, and a lone reference keeps the value itself), `{# comments #}` (dropped).
 * Anything else — other filters, `{% statements %}`, expressions — is an error saying so, rather
 * than text that would silently render differently.
 */
import { formatPath, getPath, parseReferenceExpression } from '../plan/references';
import type { PathSegment } from '../plan/references';

/** How a template resolves names: where a state key lives now, and the workflow's `variables:`. */
export type TemplateScope = {
  /** The state path a read of `state.<key>` goes to (TEA merges results into state; see tea-results). */
  stateKey(key: string): readonly PathSegment[];
  variables: Record<string, unknown>;
};

/** The rewritten value, or the problem and its offset in the string. */
export type TemplateResult = { ok: true; value: unknown } | { ok: false; message: string; at: number };

const FILTERS = new Set(['tojson']);

/**
 * Rewrites the templates in one string.
 * @example rewriteTemplate('Goal: {{ state.user_goal }}', scope) // { ok: true, value: 'Goal: {{ state.user_goal }}' }
 */
export function rewriteTemplate(s: string, scope: TemplateScope): TemplateResult {
  const statement = s.indexOf('{%');
  if (statement >= 0) {
    return {
      ok: false,
      at: statement,
      message: 'Jinja statements ({% … %}) cannot be imported; compute the value in an earlier node',
    };
  }
  let out = '';
  let last = 0;
  let pieces = 0;
  let only: { value?: unknown } | null = null;
  for (let open = s.indexOf('{'); open >= 0; open = s.indexOf('{', open + 1)) {
    const kind = s[open + 1];
    if (kind !== '{' && kind !== '#') continue;
    const closer = kind === '{' ? '}}' : '#}';
    const close = s.indexOf(closer, open + 2);
    if (close < 0) return { ok: false, at: open, message: `"{${kind}" is never closed with "${closer}"` };
    out += s.slice(last, open);
    last = close + 2;
    if (kind === '#') {
      open = close + 1;
      continue;
    }
    const r = rewriteExpression(s.slice(open + 2, close), scope);
    if (!r.ok) return { ok: false, at: open, message: r.message };
    pieces++;
    only = s.slice(0, open).trim() === '' && s.slice(close + 2).trim() === '' ? r : null;
    out += r.text;
    open = close + 1;
  }
  // A string that is exactly one `{{ variables.x }}` is that value, type and all (as a reference would be).
  if (pieces === 1 && only !== null && only.value !== undefined) return { ok: true, value: only.value };
  return { ok: true, value: out + s.slice(last) };
}

type Rewritten = { ok: true; text: string; value?: unknown } | { ok: false; message: string };

function rewriteExpression(inner: string, scope: TemplateScope): Rewritten {
  const [head = '', ...filters] = splitFilters(inner);
  for (const f of filters) {
    const name = f.replace(/\(\s*\)$/, '').trim();
    if (!FILTERS.has(name)) {
      return {
        ok: false,
        message: `filter "${name}" in {{${inner}}} is not supported (only tojson); compute the value in an earlier node`,
      };
    }
  }
  const expr = head.trim();
  const root = /^[A-Za-z_]\w*/.exec(expr)?.[0] ?? '';
  if (root === 'variables') return inlineVariable(expr, scope.variables);
  if (root !== 'state') {
    const what = root ? `"${root}"` : `"${expr}"`;
    return {
      ok: false,
      message: `{{${inner}}} reads ${what}; workflow templates can read state.<key> and variables.<key>`,
    };
  }
  const parsed = parseReferenceExpression(expr);
  if (!parsed.ok) return { ok: false, message: `{{${inner}}} is not a plain state path: ${parsed.message}` };
  const [key, ...rest] = parsed.ref.path;
  if (key === undefined) return { ok: true, text: '{{ state }}' };
  const path = [...scope.stateKey(String(key)), ...rest];
  const text = formatPath(path);
  return { ok: true, text: `{{ state${text.startsWith('[') ? '' : '.'}${text} }}` };
}

function inlineVariable(expr: string, variables: Record<string, unknown>): Rewritten {
  const parsed = parseReferenceExpression(`state${expr.slice('variables'.length)}`, expr);
  if (!parsed.ok) return { ok: false, message: `{{ ${expr} }} is not a plain path` };
  const got = getPath(variables, parsed.ref.path);
  if (!got.found) return { ok: false, message: `{{ ${expr} }}: no such entry under variables:` };
  const v = got.value;
  const text = typeof v === 'string' ? v : (JSON.stringify(v) ?? '');
  return { ok: true, text, value: v };
}

/** Splits `a | f1 | f2` at top-level bars (not inside quotes or brackets, not `||`). */
function splitFilters(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote = '';
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '(') depth++;
    else if (c === ']' || c === ')') depth--;
    else if (c === '|' && depth === 0 && s[i + 1] !== '|' && s[i - 1] !== '|') {
      parts.push(s.slice(from, i));
      from = i + 1;
    }
  }
  parts.push(s.slice(from));
  return parts;
}

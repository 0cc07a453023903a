/**
 * Reference notations accepted on import (SPEC §2): seed 004's `†state.x` / `†input.x` and
 * LLMCompiler's `$1` / `${1}`, rewritten into `{{ … }}` form.
 */
import { isRecord } from './model';

export type LegacyOptions = {
  /**
   * Also rewrite LLMCompiler's `$1` / `${1}` into `{{ steps.1.output }}`. Off by default because
   * `$5 off` is ordinary text; the LLMCompiler importer turns it on.
   */
  dollar?: boolean;
};

/** Shared default: a fresh `{}` per call is an allocation per step on big plans. */
const NO_OPTIONS: LegacyOptions = Object.freeze({});

const DAGGER = /†(state|input|steps)((?:\.[\w$\-\u0080-\uffff]+|\[\d+\]|\['[^']*'\]|\["[^"]*"\])*)/g;
const DOLLAR_WHOLE = /^\s*\$(?:(\d+)|\{(\d+)\})\s*$/;
const DOLLAR_EMBEDDED = /\$\{(\d+)\}|(?<![\w$])\$(\d+)(?![\w.])/g;

/** Rewrites one string's legacy references; returns the same string when there are none. */
export function normalizeLegacyString(s: string, opts: LegacyOptions = NO_OPTIONS): string {
  let out = s;
  if (out.indexOf('†') >= 0)
    out = out.replace(DAGGER, (_m, root: string, path: string) => `{{ ${root}${path} }}`);
  if (opts.dollar === true && out.indexOf('$') >= 0) {
    const whole = DOLLAR_WHOLE.exec(out);
    if (whole) return `{{ steps.${whole[1] ?? whole[2]}.output }}`;
    out = out.replace(
      DOLLAR_EMBEDDED,
      (_m, braced?: string, bare?: string) => `{{ steps.${braced ?? bare}.output }}`,
    );
  }
  return out;
}

/**
 * Rewrites `†state.x` / `†input.x` (and, with `{ dollar: true }`, `$1` / `${1}`) into `{{ … }}` form,
 * deeply. Unchanged parts keep their identity, so a plan without legacy notation costs no copies.
 * @example normalizeLegacyReferences({ profile: '†state.user' }) // { profile: '{{ state.user }}' }
 */
export function normalizeLegacyReferences(value: unknown, opts: LegacyOptions = NO_OPTIONS): unknown {
  if (typeof value === 'string') return normalizeLegacyString(value, opts);
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      const n = normalizeLegacyReferences(v, opts);
      if (n !== v && out === null) out = value.slice(0, i);
      if (out !== null) out.push(n);
    }
    return out ?? value;
  }
  if (isRecord(value)) {
    let out: Record<string, unknown> | null = null;
    for (const k in value) {
      if (!Object.hasOwn(value, k)) continue;
      const v = value[k];
      const n = normalizeLegacyReferences(v, opts);
      if (n !== v) {
        out ??= { ...value };
        out[k] = n;
      }
    }
    return out ?? value;
  }
  return value;
}

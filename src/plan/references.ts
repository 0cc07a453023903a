/**
 * References inside step parameters (SPEC §2): `{{ steps.<id>.output… }}`, `{{ state.… }}`,
 * `{{ input.… }}`. Parsing, the implicit dependencies they create, the seed-004 (`†state.x`) and
 * LLMCompiler (`$1`) notations normalised on import, and resolution to concrete values.
 * STUB: signatures are the contract; the implementation is being written.
 */
export type RefSource = 'steps' | 'state' | 'input';
export type PathSegment = string | number;

/**
 * One parsed reference. For `steps`, `stepId` names the step and `path` is what follows `.output`
 * (`{{ steps.search.output.items[0].url }}` → stepId "search", path ["items", 0, "url"]).
 * For `state`/`input`, `path` is everything after the root (`{{ state.a.b }}` → ["a", "b"]).
 */
export type Reference = { source: RefSource; stepId?: string; path: PathSegment[]; text: string };

/** A reference that does not parse, with where it sits in the parameters. */
export type ReferenceError = { message: string; path: PathSegment[] };

/** Every reference in a value (walked deeply: objects, arrays, strings), plus the ones that do not parse. */
export function collectReferences(_value: unknown): { refs: Reference[]; errors: ReferenceError[] } {
  throw new Error('not implemented');
}

/** Where resolution reads from. `stepOutput` returns `{ found: false }` for a step with no output. */
export type RefScope = {
  stepOutput(stepId: string): { found: boolean; value?: unknown };
  state: Record<string, unknown>;
  input: unknown;
};

export type ResolveResult = { ok: true; value: unknown } | { ok: false; missing: Reference };

/**
 * Replaces every reference in `value` with what it points to. A string that is exactly one reference
 * keeps the referenced value's type; references inside longer text are interpolated (objects as JSON).
 * A reference to something never written → `{ ok: false, missing }` (the step is then skipped).
 */
export function resolveValue(_value: unknown, _scope: RefScope): ResolveResult {
  throw new Error('not implemented');
}

/** Rewrites `†state.x` / `†input.x` and `$1` / `${1}` into `{{ … }}` form, deeply. */
export function normalizeLegacyReferences(_value: unknown): unknown {
  throw new Error('not implemented');
}

/** Reads a path from a value: `{ found: false }` when any segment is absent. */
export function getPath(_root: unknown, _path: readonly PathSegment[]): { found: boolean; value?: unknown } {
  throw new Error('not implemented');
}

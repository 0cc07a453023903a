/**
 * Jinja2 templates as TEA renders them (its yaml_templates.py), with `@huggingface/jinja` — an
 * interpreter, so no `eval` / `new Function` (Workers forbid both). A string that is exactly one
 * `{{ expr }}` gives the expression's value, type and all (TEA's "object passthrough"); any other
 * string renders to text. TEA's extra filters are added: `round` (Jinja2's), `fromjson` (parse, the
 * input back on a parse error) and `json`. Errors carry the 1-based line inside the template.
 * Pure: used by the engine when a step's parameters are rendered.
 */
import { Environment, Interpreter, parse, tokenize } from '@huggingface/jinja';
import { withBoundedAllocations } from './jinja-allocation';
import { isStackOverflow, MAX_TEMPLATE_DEPTH, templateDepth, TOO_DEEP } from './jinja-depth';
import { budgetLeft, limitRender, renderBudget, type RenderBudget } from './jinja-budget';
import { TextKeyedCache, type TextKeyedCacheLimits } from './text-keyed-cache';

/** What a template may read: TEA's `state`, `variables`, `settings`, …, and extras (`subtask`, `result`). */
export type TemplateContext = Record<string, unknown>;

export type TemplateOutcome = { ok: true; value: unknown } | { ok: false; message: string; line: number };

type Program = ReturnType<typeof parse>;
type AnyNode = { type: string; value?: unknown; callee?: AnyNode; args?: AnyNode[] };
type RuntimeValue = { type: string; value: unknown };

const SINGLE = /^\{\{([\s\S]*?)\}\}$/;
/**
 * Compiled templates this isolate keeps: a template's parse tree is ~15 times its length in heap, so
 * 256 Ki characters of templates are about 4 MiB; one over 32 Ki characters is parsed at each use.
 */
export const TEMPLATE_CACHE: TextKeyedCacheLimits = {
  maxEntries: 500,
  maxTotalLength: 256 * 1024,
  maxTextLength: 32 * 1024,
};
const cache = new TextKeyedCache<Program>(TEMPLATE_CACHE);

/**
 * How many compiled templates this isolate keeps, and their templates' length (diagnostics, tests).
 * @example cachedTemplates() // { entries: 12, characters: 1840 }
 */
export function cachedTemplates(): { entries: number; characters: number } {
  return { entries: cache.size, characters: cache.totalLength };
}

/** Whether a string holds any template syntax. */
export function isTemplate(s: string): boolean {
  return s.includes('{{') || s.includes('{%') || s.includes('{#');
}

/**
 * Parses a template, or says what is wrong and on which line of it.
 * @example checkTemplate('a\n{{ state.x( }}') // { ok: false, message: 'Unexpected token: CloseExpression', line: 2 }
 */
export function checkTemplate(source: string): { ok: true } | { ok: false; message: string; line: number } {
  const r = compile(source);
  return r.ok ? { ok: true } : r;
}

/**
 * Renders one string as TEA does: a lone `{{ expr }}` gives the value itself, anything else text.
 * `budget`: what this render may spend, shared with others (jinja-budget.ts); a fresh one by default.
 * @example renderTemplate('{{ state.n + 1 }}', { state: { n: 2 } }) // { ok: true, value: 3 }
 */
export function renderTemplate(
  source: string,
  context: TemplateContext,
  budget: RenderBudget = renderBudget(),
): TemplateOutcome {
  if (!isTemplate(source)) return { ok: true, value: source };
  const trimmed = source.trim();
  const single = SINGLE.exec(trimmed);
  if (single && !trimmed.includes('{%') && trimmed.split('{{').length === 2) {
    const compiled = compile(`{{ (${single[1]}) | tojson }}`);
    if (!compiled.ok) return { ...compiled, line: lineBefore(source, source.indexOf('{{')) };
    const out = run(compiled.program, context, source, budget);
    if (!out.ok) return out;
    const text = String(out.value);
    // An undefined value renders as nothing: TEA's lenient state reads give None.
    return { ok: true, value: text === '' ? null : (JSON.parse(text) as unknown) };
  }
  const compiled = compile(source);
  if (!compiled.ok) return compiled;
  return run(compiled.program, context, source, budget);
}

/**
 * Renders every string in a value (objects and arrays walked); a failure names its path
 * (`messages.1.content`). The strings share one render budget: a node's `with:` is bounded as a whole.
 * @example renderValue({ a: '{{ state.x }}' }, { state: { x: [1] } }) // { ok: true, value: { a: [1] } }
 */
export function renderValue(
  value: unknown,
  context: TemplateContext,
): { ok: true; value: unknown } | { ok: false; message: string; line: number; path: string } {
  const budget = renderBudget();
  const walk = (
    v: unknown,
    path: string,
  ): { ok: true; value: unknown } | { ok: false; message: string; line: number; path: string } => {
    if (typeof v === 'string') {
      const r = renderTemplate(v, context, budget);
      return r.ok ? r : { ...r, path };
    }
    if (Array.isArray(v)) {
      const out: unknown[] = [];
      for (let i = 0; i < v.length; i++) {
        const r = walk(v[i], path ? `${path}.${i}` : String(i));
        if (!r.ok) return r;
        out.push(r.value);
      }
      return { ok: true, value: out };
    }
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, item] of Object.entries(v)) {
        const r = walk(item, path ? `${path}.${k}` : k);
        if (!r.ok) return r;
        Object.defineProperty(out, k, {
          value: r.value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return { ok: true, value: out };
    }
    return { ok: true, value: v };
  };
  return walk(value, '');
}

/**
 * A condition as TEA evaluates it: `True`/`False`, `name` (state.name is truthy), `!name`, a
 * `{{ … }}` template, or a bare expression (wrapped in `{{ }}`); the value's Python truthiness.
 * @example evaluateCondition('state.n > 1', { state: { n: 2 } }) // { ok: true, value: true }
 */
export function evaluateCondition(expr: unknown, context: TemplateContext): TemplateOutcome {
  if (typeof expr !== 'string') return { ok: true, value: truthy(expr) };
  const e = expr.trim();
  if (e === 'True' || e === 'true') return { ok: true, value: true };
  if (e === 'False' || e === 'false') return { ok: true, value: false };
  const state = (context.state ?? {}) as Record<string, unknown>;
  const negated = /^!\s*([A-Za-z_]\w*)$/.exec(e);
  if (negated) return { ok: true, value: !truthy(state[negated[1]!]) };
  if (/^[A-Za-z_]\w*$/.test(e)) return { ok: true, value: truthy(state[e]) };
  const r = renderTemplate(e.includes('{{') || e.includes('{%') ? e : `{{ ${e} }}`, context);
  if (!r.ok) return r;
  // A rendered string is judged as TEA's bool() would judge it ("False" text is still true).
  return { ok: true, value: truthy(r.value) };
}

/** Python's truthiness for JSON values. */
export function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return true;
}

function compile(
  source: string,
): { ok: true; program: Program } | { ok: false; message: string; line: number } {
  const hit = cache.get(source);
  if (hit) return { ok: true, program: hit };
  try {
    // Jinja2's defaults (TEA sets neither trim_blocks nor lstrip_blocks).
    const program = parse(tokenize(source, { lstrip_blocks: false, trim_blocks: false }));
    // Refused before it is run (and while a plan is validated): evaluating it would overflow the stack.
    if (templateDepth(program) > MAX_TEMPLATE_DEPTH) return { ok: false, message: TOO_DEEP, line: 1 };
    return { ok: true, program: cache.put(source, program) };
  } catch (e) {
    return { ok: false, message: messageOf(e), line: failingLine(source) };
  }
}

function run(
  program: Program,
  context: TemplateContext,
  source: string,
  budget: RenderBudget,
): { ok: true; value: unknown } | { ok: false; message: string; line: number } {
  try {
    const env = new Environment();
    for (const [k, v] of Object.entries({
      true: true,
      false: false,
      none: null,
      True: true,
      False: false,
      None: null,
    }))
      env.set(k, v);
    env.set('range', (...args: number[]) => pyRange(args));
    for (const [k, v] of Object.entries(context)) env.set(k, v);
    const interpreter = teaInterpreter(env, budget);
    const value = withBoundedAllocations(
      () => budgetLeft(budget),
      () => interpreter.run(program).value,
    );
    return { ok: true, value };
  } catch (e) {
    return { ok: false, message: messageOf(e), line: failingLineAtRun(source, context) };
  }
}

/** The library's interpreter as this module uses it (its filter hook is private in its types). */
type Filterable = {
  applyFilter(operand: RuntimeValue, node: AnyNode, env: Environment): RuntimeValue;
  evaluate(node: AnyNode, env: Environment): RuntimeValue;
};

/**
 * An interpreter with Jinja2's `round`, TEA's `fromjson` and `json` on top of the library's filters,
 * bounded in the work and the memory one render takes (jinja-budget.ts).
 */
function teaInterpreter(env: Environment, budget: RenderBudget): Interpreter {
  const interpreter = new Interpreter(env);
  limitRender(interpreter, budget);
  const raw = interpreter as unknown as Filterable;
  const base = raw.applyFilter.bind(raw);
  raw.applyFilter = (operand, filterNode, environment) => {
    const name = filterNode.type === 'Identifier' ? filterNode.value : filterNode.callee?.value;
    if (name === 'round') {
      if (typeof operand.value !== 'number') throw new Error(`round needs a number, got ${operand.type}`);
      // Its arguments evaluated here, for this filter alone: the library's filters evaluate their own
      // (keyword arguments too, `indent(width=2)`, which `evaluate` alone does not know).
      const given = filterNode.type === 'CallExpression' ? filterNode.args?.[0] : undefined;
      const arg = given?.type === 'KeywordArgumentExpression' ? given.value : given;
      const precision = arg ? raw.evaluate(arg as AnyNode, environment).value : 0;
      if (typeof precision !== 'number') throw new Error(`round's precision must be a number`);
      const f = 10 ** precision;
      return toRuntime(Number((Math.round(operand.value * f) / f).toFixed(Math.max(0, precision))), true);
    }
    if (name === 'fromjson') {
      if (typeof operand.value !== 'string') return operand;
      try {
        return toRuntime(JSON.parse(operand.value));
      } catch {
        return operand;
      }
    }
    if (name === 'json') return base(operand, { type: 'Identifier', value: 'tojson' }, environment);
    return base(operand, filterNode, environment);
  };
  return interpreter;
}

/** A JS value as the library's runtime value (through an environment, which converts on `set`). */
function toRuntime(v: unknown, float = false): RuntimeValue {
  const env = new Environment();
  env.set('v', v);
  const out = env.lookupVariable('v') as unknown as RuntimeValue;
  // Jinja2's round gives a float: 3 → 3.0.
  if (float && out.type === 'IntegerValue') {
    const probe = new Environment();
    probe.set('v', 0.5);
    const Ctor = (probe.lookupVariable('v') as unknown as { constructor: new (n: number) => RuntimeValue })
      .constructor;
    return new Ctor(out.value as number);
  }
  return out;
}

function pyRange(args: number[]): number[] {
  const [a = 0, b, step = 1] = args;
  const [start, stop] = b === undefined ? [0, a] : [a, b];
  const out: number[] = [];
  if (step === 0) throw new Error('range() arg 3 must not be zero');
  for (let i = start; step > 0 ? i < stop : i > stop; i += step) {
    out.push(i);
    if (out.length > 100_000) throw new Error('range() is too long');
  }
  return out;
}

function messageOf(e: unknown): string {
  if (isStackOverflow(e)) return TOO_DEEP;
  return e instanceof Error ? e.message : String(e);
}

/** The 1-based line of `offset` in `s`. */
function lineBefore(s: string, offset: number): number {
  return s.slice(0, Math.max(0, offset)).split('\n').length;
}

/** Each tag of a template with its offset. */
function tags(source: string): { text: string; at: number; kind: string }[] {
  const out: { text: string; at: number; kind: string }[] = [];
  const re = /\{([{%#])([\s\S]*?)([}%#])\}/g;
  for (let m = re.exec(source); m; m = re.exec(source)) out.push({ text: m[0], at: m.index, kind: m[1]! });
  return out;
}

/**
 * The line a syntax error is on: the first expression tag that does not parse alone, else an
 * unclosed tag, else the first statement tag whose prefix of the template fails to parse, else 1.
 */
function failingLine(source: string): number {
  const all = tags(source);
  for (const t of all) {
    if (t.kind !== '{') continue;
    try {
      parse(tokenize(t.text));
    } catch {
      return lineBefore(source, t.at);
    }
  }
  const open = /\{[{%](?![\s\S]*?[}%]\})/.exec(source);
  if (open) return lineBefore(source, open.index);
  // A statement problem: the last tag before which the template's tokens still lex and the block
  // structure is still open is where it goes wrong; report the last statement tag that lexes badly.
  for (const t of all) {
    if (t.kind !== '%') continue;
    try {
      tokenize(t.text);
    } catch {
      return lineBefore(source, t.at);
    }
  }
  const last = all.filter((t) => t.kind === '%').at(-1);
  return last ? lineBefore(source, last.at) : 1;
}

/**
 * The line a render error is on: the first expression tag that fails on its own (loop names unset).
 * Its tags share one budget: looking for the line costs at most one more render.
 */
function failingLineAtRun(source: string, context: TemplateContext): number {
  const budget = renderBudget();
  for (const t of tags(source)) {
    if (t.kind !== '{') continue;
    try {
      const env = new Environment();
      for (const [k, v] of Object.entries(context)) env.set(k, v);
      const interpreter = teaInterpreter(env, budget);
      withBoundedAllocations(
        () => budgetLeft(budget),
        () => interpreter.run(parse(tokenize(t.text))),
      );
    } catch {
      return lineBefore(source, t.at);
    }
  }
  return 1;
}

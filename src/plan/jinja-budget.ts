/**
 * A bound on what rendering one template may do. `@huggingface/jinja` interprets without limits, and a
 * template is the plan author's code running inside the run's object: nested loops over `range()`
 * (`range(100000)` twice is 10^10 steps) burn the object's CPU for minutes, and a string doubled in a
 * loop (`{% set s = s ~ s %}`) takes its memory past the isolate's limit, which restarts the whole
 * runtime, every run in it with it. Counted here: every expression and statement evaluated, every block
 * entered (each pass of a loop, an empty one too), and the size of every value one makes (characters
 * of text, elements of lists and mappings); values only read (a variable, a member, a literal) cost
 * nothing, so passing a large state value through is free. One {@link RenderBudget} may be shared by
 * several renders — every template of a node's `with:` — so splitting the work over many templates
 * gains nothing. Pure.
 */
import type { Interpreter } from '@huggingface/jinja';

/** Expressions and statements one render may evaluate: under a second of CPU (about 2 µs each). */
export const MAX_RENDER_STEPS = 250_000;

/** Characters and elements one render may make, all values summed: several times the largest parameters (16 MiB). */
export const MAX_RENDER_UNITS = 64 * 1024 * 1024;

/** What renders sharing it have spent so far (see {@link limitRender}). */
export type RenderBudget = { steps: number; made: number };

/** How many characters and items the renders sharing `budget` may still make. */
export function budgetLeft(budget: RenderBudget): number {
  return MAX_RENDER_UNITS - budget.made;
}

/** A budget nothing has been spent from. */
export function renderBudget(): RenderBudget {
  return { steps: 0, made: 0 };
}

type Node = { type: string };
type Value = { type: string; value: unknown };
type Evaluating = {
  evaluate(node: Node | undefined, env: unknown): Value;
  evaluateBlock(statements: Node[], env: unknown): Value;
};

/** Nodes whose value already exists (read, not made). */
const READS = new Set(['Identifier', 'MemberExpression', 'StringLiteral', 'IntegerLiteral', 'FloatLiteral']);

/**
 * Makes `interpreter` throw once the renders spending `budget` go past {@link MAX_RENDER_STEPS} or
 * {@link MAX_RENDER_UNITS}; the error's message says which (a `template_error` to the caller).
 * @example
 * const interpreter = new Interpreter(env);
 * limitRender(interpreter);
 * interpreter.run(parse(tokenize('{% for i in range(9) %}{% for j in range(9) %}x{% endfor %}{% endfor %}')));
 */
export function limitRender(interpreter: Interpreter, budget: RenderBudget = renderBudget()): void {
  const raw = interpreter as unknown as Evaluating;
  const evaluate = raw.evaluate.bind(raw);
  const evaluateBlock = raw.evaluateBlock.bind(raw);
  const step = () => {
    if (++budget.steps > MAX_RENDER_STEPS) {
      throw new Error(
        `the template takes more than ${MAX_RENDER_STEPS.toLocaleString('en-US')} steps to render; a loop (or loops inside loops) goes over too many items`,
      );
    }
  };
  const spend = (value: Value) => {
    budget.made += sizeOf(value, MAX_RENDER_UNITS - budget.made + 1);
    if (budget.made > MAX_RENDER_UNITS) {
      throw new Error(
        `the template makes more than ${MAX_RENDER_UNITS / 1024 / 1024} Mi characters and items of values as it renders; make the text or the loop smaller`,
      );
    }
  };
  // The library calls this.evaluate / this.evaluateBlock for every node, so these see all of them.
  raw.evaluate = (node, env) => {
    step();
    const out = evaluate(node, env);
    // The library evaluates a missing part (an absent `else`, a slice bound) as undefined.
    if (node && !READS.has(node.type)) spend(out);
    return out;
  };
  // A step of its own: a loop whose body is empty evaluates no statement, only the block, each pass.
  raw.evaluateBlock = (statements, env) => {
    step();
    const out = evaluateBlock(statements, env);
    spend(out);
    return out;
  };
}

/** A value's size in characters and elements, counted up to `limit` (past it the count stops). */
function sizeOf(value: Value, limit: number): number {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && size <= limit) {
    const v = stack.pop() as Value | undefined;
    if (v === undefined || v === null || typeof v !== 'object') {
      size += 1;
      continue;
    }
    const inner = v.value;
    if (typeof inner === 'string') size += inner.length;
    else if (Array.isArray(inner)) {
      size += 1;
      for (const x of inner) stack.push(x);
    } else if (inner instanceof Map) {
      size += 1;
      for (const [k, x] of inner as Map<unknown, unknown>) {
        size += typeof k === 'string' ? k.length : 1;
        stack.push(x);
      }
    } else size += 1;
  }
  return size;
}

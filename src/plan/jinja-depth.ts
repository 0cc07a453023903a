/**
 * How deeply a template's expressions may nest. @huggingface/jinja parses and evaluates by recursion,
 * so an expression thousands of levels deep — a chain of 5,000 `or`, 1,000 nested brackets, a long
 * pipe of filters — runs it out of stack, and the step failed with "Maximum call stack size exceeded"
 * at line 1. A parsed template deeper than the limit is refused with what to change, found by a walk
 * that does not recurse; a template too deep even to parse gets the same advice.
 */

/** The most levels of expression a template may nest; a real template stays far below it. */
export const MAX_TEMPLATE_DEPTH = 256;

/** What to change, for a template that nests too deeply. */
export const TOO_DEEP =
  `the template nests too deeply to evaluate (more than ${MAX_TEMPLATE_DEPTH} levels: a long chain of ` +
  '`or`/`and`, deeply nested brackets or a long pipe of filters) — split it into smaller expressions ' +
  '(`{% set %}` parts, or several parameters), or test a list with `in`';

/** Whether `e` is the engine running out of stack. */
export function isStackOverflow(e: unknown): boolean {
  return e instanceof RangeError && /call stack/i.test(e.message);
}

/**
 * The depth of a parsed template's syntax tree (its nodes: objects with a string `type`), counted
 * without recursing; stops counting past `limit`.
 * @example templateDepth(parse(tokenize('{{ a or b }}'))) // 3 (program, or, identifiers)
 */
export function templateDepth(program: object, limit = MAX_TEMPLATE_DEPTH): number {
  let max = 0;
  const stack: [object, number][] = [[program, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > max) max = depth;
    if (max > limit) return max;
    for (const v of Object.values(node)) {
      for (const child of Array.isArray(v) ? (v as unknown[]) : [v]) {
        if (isNode(child)) stack.push([child, depth + 1]);
      }
    }
  }
  return max;
}

function isNode(v: unknown): v is object {
  return typeof v === 'object' && v !== null && typeof (v as { type?: unknown }).type === 'string';
}

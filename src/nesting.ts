/**
 * How deeply data from a client may nest. Validation, reference rewriting, the import parsers and
 * structured cloning all recurse into what they are given, so a body nested thousands of levels deep
 * would overflow the stack (a 500) wherever it first met one of them. Every entry checks the depth
 * first, without recursing: the JSON body middleware scans the text, the import parsers count as
 * they read.
 */

/**
 * The most levels of arrays and objects (or YAML sequences and maps, or LLMCompiler lists and
 * dicts) a request may nest, the request body itself counting as the first. A plan nests three
 * levels per sub-plan (`steps` → step → `subplan`), so real plans stay far below it.
 */
export const MAX_NESTING_DEPTH = 100;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * The deepest nesting of arrays and objects in JSON text, in one pass over the characters (brackets
 * inside strings do not count). Text that is not JSON gets a number too; parsing it says what is
 * wrong with it.
 * @example jsonNestingDepth('{"a": [1, "]"]}') // 2
 */
export function jsonNestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > max) max = depth;
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
      depth--;
    }
  }
  return max;
}

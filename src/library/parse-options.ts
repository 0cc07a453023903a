/**
 * Options a team's code hands the library, checked where they enter: a value of the wrong type, a
 * negative or non-finite number or a misspelt key (`timeout_ms`) is refused at once with
 * `invalid_options`, naming each setting in words — not taken silently (a negative `retries` meaning
 * none) to fail, or not, halfway through a run.
 */
import { z } from 'zod';
import { EdgeplanError } from '../errors';
import { issueLine, issueText } from '../issue-text';
import { unknownKeysError } from '../plan/key-suggestions';

/**
 * `z.strictObject(shape)` whose unknown keys are named with the known key each most likely meant.
 * @example optionsObject({ retries: z.number() }) // { retires: 1 } → `Unknown key "retires" (did you mean "retries"?)`
 */
export function optionsObject<T extends z.ZodRawShape>(shape: T) {
  return z.strictObject(shape, { error: unknownKeysError(Object.keys(shape)) });
}

/** A function the library calls (a `fetch`, a hook): checked to be one, never called here. */
export const fn = z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function', {
  error: 'must be a function',
});

/**
 * `raw` if `schema` accepts it, else `invalid_options` naming `what` and each bad setting. The value
 * returned is the caller's own (functions and class instances kept as they were), not zod's copy.
 * @example checkOptions('llm options', llmOptionsSchema, { retries: -1 }) // throws "Invalid llm options: retries: must be at least 0"
 */
export function checkOptions<T>(what: string, schema: z.ZodType, raw: T): T {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return raw;
  throw new EdgeplanError('invalid_options', `Invalid ${what}: ${optionsIssuesText(parsed.error)}`, {
    details: {
      issues: parsed.error.issues.map((i) => ({ path: i.path, message: issueText(i), code: i.code })),
    },
  });
}

/**
 * Each issue as `path: message`; one about the options as a whole reads without a path — `Unknown key
 * "timeout_ms" (did you mean "timeoutMs"?)`, or `the value is required (an object)` — not `(root): …`.
 */
function optionsIssuesText(error: z.ZodError): string {
  return error.issues
    .map((i) => {
      if (i.path.length) return issueLine(i);
      const text = issueText(i);
      return /^(is|must) /.test(text) ? `the value ${text}` : text;
    })
    .join('; ');
}

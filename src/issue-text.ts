/**
 * zod's issues said in plain English, in one place: every message edgeplan builds from a zod issue
 * (a request body, a plan, a tool's parameters, a run's config, an MCP call's arguments) reads its
 * text from {@link issueText}. zod's own English is written for developers — `Too small: expected
 * string to have >=1 characters` — where a person reads `must not be empty`. Only zod's default
 * messages are rewritten: a message a schema gave itself (`.min(1, 'name the service')`, edgeplan's
 * `Unknown key "reasn" (did you mean "reason"?)`) is what its author meant to say, and is kept.
 * Pure: no zod import at run time, so it loads anywhere, the dashboard's bundle too.
 */

/** The fields of a zod issue this reads; zod's `$ZodIssue` fits it. */
export type IssueLike = {
  readonly code: string;
  readonly message: string;
  readonly path?: readonly PropertyKey[];
  readonly origin?: string;
  readonly expected?: string;
  readonly minimum?: number | bigint | Date;
  readonly maximum?: number | bigint | Date;
  readonly inclusive?: boolean;
  readonly exact?: boolean;
  readonly values?: readonly unknown[];
  readonly format?: string;
  readonly pattern?: string;
  readonly prefix?: string;
  readonly suffix?: string;
  readonly includes?: string;
  readonly divisor?: number | bigint;
  readonly keys?: readonly string[];
};

/** What a type zod names is called in a sentence. */
const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  bigint: 'an integer',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  date: 'a date',
  null: 'null',
  undefined: 'nothing',
  nan: 'NaN',
  record: 'an object',
  map: 'a map',
  set: 'a set',
  tuple: 'an array',
  function: 'a function',
  symbol: 'a symbol',
};

/** What zod's string formats are called in a sentence. */
const FORMAT_NAMES: Record<string, string> = {
  email: 'an email address',
  url: 'a URL',
  uuid: 'a UUID',
  guid: 'a GUID',
  datetime: 'an ISO date and time (2026-11-30T12:00:00Z)',
  date: 'an ISO date (2026-11-30)',
  time: 'an ISO time (12:00:00)',
  duration: 'an ISO duration (PT5M)',
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
  cidrv4: 'an IPv4 range',
  cidrv6: 'an IPv6 range',
  base64: 'base64 text',
  base64url: 'base64url text',
  json_string: 'JSON text',
  jwt: 'a JWT',
};

/** The units zod counts a sized value's length in. */
const UNITS: Record<string, string> = {
  string: 'characters',
  array: 'items',
  set: 'items',
  map: 'entries',
  file: 'bytes',
};

/** zod's English message prefix for each code it rewrites: a message without it is the schema's own. */
const DEFAULT_PREFIX: Record<string, readonly string[]> = {
  invalid_type: ['Invalid input: expected '],
  too_small: ['Too small: expected '],
  too_big: ['Too big: expected '],
  invalid_value: ['Invalid input: expected ', 'Invalid option: expected one of '],
  invalid_format: ['Invalid '],
  not_multiple_of: ['Invalid number: must be a multiple of '],
  unrecognized_keys: ['Unrecognized key'],
  invalid_union: ['Invalid input'],
};

/**
 * The issue's message as a person reads it: `must not be empty`, `must be at least 1`, `must be one
 * of "sequential", "parallel" or "adaptive"`, `must be a number, not a string`, `is required`; a
 * message the schema wrote itself, or one of a kind not listed here, as it came.
 * @example issueText(z.string().min(1).safeParse('').error!.issues[0]!) // "must not be empty"
 */
export function issueText(issue: IssueLike): string {
  const prefixes = DEFAULT_PREFIX[issue.code];
  if (prefixes === undefined) return issue.message;
  // zod mini, with no locale loaded (the dashboard's), says only `Invalid input`.
  const mini = issue.message === 'Invalid input';
  if (!mini && !prefixes.some((p) => issue.message.startsWith(p))) return issue.message;
  return plain(issue) ?? issue.message;
}

/**
 * `path: text` for one issue, the path as a plan or body writes it (`config.max_parallel`,
 * `steps[0].id`), `(root)` for the value itself.
 * @example issueLine(z.object({ n: z.number().min(1) }).safeParse({ n: 0 }).error!.issues[0]!)
 * // "n: must be at least 1"
 */
export function issueLine(issue: IssueLike): string {
  return `${pathText(issue.path ?? [])}: ${issueText(issue)}`;
}

/** Several issues on one line, `; ` between them. */
export function issuesText(issues: readonly IssueLike[]): string {
  return issues.map(issueLine).join('; ');
}

/** `["plan", "steps", 0, "id"]` → `plan.steps[0].id`; the root is `(root)`. */
export function pathText(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? String(seg) : `.${String(seg)}`;
  }
  return out === '' ? '(root)' : out;
}

function plain(issue: IssueLike): string | null {
  switch (issue.code) {
    case 'invalid_type':
      return typeText(issue);
    case 'too_small':
      return boundText(issue, 'min');
    case 'too_big':
      return boundText(issue, 'max');
    case 'invalid_value':
      return valueText(issue.values ?? []);
    case 'invalid_format':
      return formatText(issue);
    case 'not_multiple_of':
      return issue.divisor === undefined ? null : `must be a multiple of ${String(issue.divisor)}`;
    case 'unrecognized_keys': {
      const keys = issue.keys ?? [];
      if (keys.length === 0) return null;
      return `unknown key${keys.length > 1 ? 's' : ''} ${keys.map((k) => JSON.stringify(k)).join(', ')}`;
    }
    case 'invalid_union':
      return issue.message === 'Invalid input' ? 'is not any of the forms it may take' : null;
    default:
      return null;
  }
}

/** `Invalid input: expected string, received number` → `must be a string, not a number`. */
function typeText(issue: IssueLike): string | null {
  const m = /^Invalid input: expected (\S+), received (\S+)$/.exec(issue.message);
  const expected = issue.expected ?? m?.[1];
  if (expected === undefined) return null;
  const want = TYPE_NAMES[expected] ?? expected;
  const got = m?.[2];
  if (got === 'undefined') return `is required (${want})`;
  if (got === undefined) return `must be ${want}`;
  // zod says a fraction given for an integer is a `number`, which reads as if a number were wrong.
  if (expected === 'int' && got === 'number') return 'must be a whole number';
  return `must be ${want}, not ${got === 'boolean' ? 'a boolean' : (TYPE_NAMES[got] ?? got)}`;
}

function boundText(issue: IssueLike, side: 'min' | 'max'): string | null {
  const bound = side === 'min' ? issue.minimum : issue.maximum;
  if (bound === undefined) return null;
  const n = bound instanceof Date ? bound.toISOString() : String(bound);
  const unit = issue.origin === undefined ? undefined : UNITS[issue.origin];
  if (unit !== undefined) {
    if (side === 'min' && issue.inclusive !== false && n === '1' && issue.exact !== true)
      return 'must not be empty';
    const count = `${n} ${unit === 'characters' && n === '1' ? 'character' : unit === 'items' && n === '1' ? 'item' : unit}`;
    const verb = issue.origin === 'string' ? 'must be' : 'must have';
    const tail = issue.origin === 'string' ? ' long' : '';
    if (issue.exact === true) return `${verb} exactly ${count}${tail}`;
    if (side === 'min')
      return issue.inclusive === false
        ? `${verb} more than ${count}${tail}`
        : `${verb} at least ${count}${tail}`;
    return issue.inclusive === false
      ? `${verb} fewer than ${count}${tail}`
      : `${verb} at most ${count}${tail}`;
  }
  if (issue.exact === true) return `must be exactly ${n}`;
  if (issue.origin === 'date') {
    if (side === 'min') return issue.inclusive === false ? `must be after ${n}` : `must be ${n} or later`;
    return issue.inclusive === false ? `must be before ${n}` : `must be ${n} or earlier`;
  }
  if (side === 'min')
    return issue.inclusive === false ? `must be greater than ${n}` : `must be at least ${n}`;
  return issue.inclusive === false ? `must be less than ${n}` : `must be at most ${n}`;
}

/** `must be "a"`, `must be "a" or "b"`, `must be one of "a", "b" or "c"`. */
function valueText(values: readonly unknown[]): string | null {
  if (values.length === 0) return null;
  const shown = values.map((v) => (typeof v === 'bigint' ? `${v}` : (JSON.stringify(v) ?? String(v))));
  if (shown.length === 1) return `must be ${shown[0]}`;
  const last = shown[shown.length - 1];
  const rest = shown.slice(0, -1).join(', ');
  return shown.length === 2 ? `must be ${rest} or ${last}` : `must be one of ${rest} or ${last}`;
}

function formatText(issue: IssueLike): string | null {
  switch (issue.format) {
    case 'starts_with':
      return issue.prefix === undefined ? null : `must start with ${JSON.stringify(issue.prefix)}`;
    case 'ends_with':
      return issue.suffix === undefined ? null : `must end with ${JSON.stringify(issue.suffix)}`;
    case 'includes':
      return issue.includes === undefined ? null : `must contain ${JSON.stringify(issue.includes)}`;
    case 'regex':
      return issue.pattern === undefined ? null : `must match the pattern ${issue.pattern}`;
    default: {
      const name = issue.format === undefined ? undefined : FORMAT_NAMES[issue.format];
      return name === undefined ? null : `must be ${name}`;
    }
  }
}

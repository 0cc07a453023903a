/**
 * How an MCP tool's arguments become its API request: the path of a run's route from `run_id`, the
 * body from the other arguments, or — for a GET — the query string from them.
 */
import { unknownKeysMessage } from '../plan/key-suggestions';

/** The API request a tool call becomes. */
export type ApiCall = {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  /** Request headers the call carries beside the caller's Authorization (`Idempotency-Key`). */
  headers?: Record<string, string>;
};

export type CallOrError = ApiCall | { error: string };

/** `/v1/runs/<id><suffix>`, or an error when `run_id` is missing. */
function runPath(args: Record<string, unknown>, suffix: string): { path: string } | { error: string } {
  const id = args.run_id;
  if (id === undefined || id === '') return { error: 'run_id is required: the id of the run (run_…)' };
  if (typeof id !== 'string')
    return { error: `run_id must be a string, the id of the run (run_…); got ${JSON.stringify(id)}` };
  return { path: `/v1/runs/${encodeURIComponent(id)}${suffix}` };
}

/** The arguments without `run_id`: the body of a run's route. */
export function bodyOf(args: Record<string, unknown>): Record<string, unknown> {
  const { run_id: _, ...body } = args;
  return body;
}

/** A request on one run: `method` on `/v1/runs/<run_id><suffix>`, with `body` if given. */
export function onRun(
  args: Record<string, unknown>,
  method: ApiCall['method'],
  suffix: string,
  body?: unknown,
): CallOrError {
  const at = runPath(args, suffix);
  return 'error' in at ? at : { method, path: at.path, ...(body === undefined ? {} : { body }) };
}

/** `POST /v1/runs` with the arguments as its body, and `idempotency_key` as its `Idempotency-Key`. */
export function startRunCall(args: Record<string, unknown>): CallOrError {
  const { idempotency_key: key, ...body } = args;
  if (key === undefined) return { method: 'POST', path: '/v1/runs', body };
  if (typeof key !== 'string')
    return {
      error: `idempotency_key must be a string (1–255 printable ASCII characters); got ${JSON.stringify(key)}`,
    };
  return { method: 'POST', path: '/v1/runs', body, headers: { 'Idempotency-Key': key } };
}

/**
 * A GET of `path` with `args` (but `run_id`) as its query: a text, number or boolean each, as the
 * route reads it from a URL; the route checks the values.
 * @example getWithQuery('/v1/runs', { limit: 5, top_level: true }); // GET /v1/runs?limit=5&top_level=true
 */
export function getWithQuery(path: string, args: Record<string, unknown>): CallOrError {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(bodyOf(args))) {
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean')
      return { error: `${name} must be a string, a number or a boolean; got ${JSON.stringify(value)}` };
    query.set(name, String(value));
  }
  const search = query.toString();
  return { method: 'GET', path: search === '' ? path : `${path}?${search}` };
}

/** A GET on one run: `/v1/runs/<run_id><suffix>` with the other arguments as its query. */
export function getOnRun(args: Record<string, unknown>, suffix: string): CallOrError {
  const at = runPath(args, suffix);
  return 'error' in at ? at : getWithQuery(at.path, args);
}

/**
 * Why `args` are refused by a tool that takes only `known` arguments (its route would drop or
 * misread the others), naming the one each likely meant, or lack one of `required`; null when none is.
 * @example argumentsProblem({ run_id: 'r', timout_s: 5 }, ['run_id', 'timeout_s'], []); // 'Unknown argument "timout_s" (did you mean "timeout_s"?) …'
 */
export function argumentsProblem(
  args: Record<string, unknown>,
  known: readonly string[],
  required: readonly string[],
): string | null {
  const unknown = Object.keys(args).filter((k) => !known.includes(k));
  if (unknown.length > 0) {
    const message = unknownKeysMessage(unknown, known).replace(/^Unknown key/, 'Unknown argument');
    return `${message}; the arguments are ${known.join(', ') || 'none'}`;
  }
  const missing = required.find((k) => args[k] === undefined);
  return missing === undefined ? null : `${missing} is required; the arguments are ${known.join(', ')}`;
}

/**
 * How an MCP tool's arguments become its API request: the path of a run's route from `run_id`, the
 * body from the other arguments, or — for a GET — the query string from them.
 */
import { unknownKeysMessage } from '../plan/key-suggestions';
import { RUN_ID_PATTERN } from '../plan/model';
import type { ErrorCode } from './errors';
import { IDEMPOTENCY_KEY_HEADER, parseIdempotencyKey } from './idempotency-key';
import { echoed } from './echoed';
import { MCP_STEP_IDS_MAX } from './mcp-run-answer';

/** The API request a tool call becomes. */
export type ApiCall = {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  /** Request headers the call carries beside the caller's Authorization (`Idempotency-Key`). */
  headers?: Record<string, string>;
};

/** Why a call makes no request: the tool result's error code (`invalid_request` unless said) and message. */
export type CallError = { error: string; code?: ErrorCode };

export type CallOrError = ApiCall | CallError;

/** `value` as JSON for a message, cut as every message cuts what it repeats of the caller's (echoed.ts). */
function echo(value: unknown): string {
  return echoed(JSON.stringify(value) ?? String(value));
}

/**
 * `/v1/runs/<id><suffix>`, or an error when `run_id` is missing or can name no run. The id is checked
 * here, not left to the route: `.` and `..` would be resolved away as path segments (`get_run` of "."
 * answered the run list), and a lone surrogate cannot be percent-encoded at all.
 */
function runPath(args: Record<string, unknown>, suffix: string): { path: string } | CallError {
  const id = args.run_id;
  if (id === undefined || id === '') return { error: 'run_id is required: the id of the run (run_…)' };
  if (typeof id !== 'string')
    return { error: `run_id must be a string, the id of the run (run_…); got ${echo(id)}` };
  if (!RUN_ID_PATTERN.test(id))
    return {
      code: 'not_found',
      error: `No run ${echo(id)}: a run's id is "run_" and up to 64 letters or digits, as start_run and list_runs return it`,
    };
  return { path: `/v1/runs/${id}${suffix}` };
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

/**
 * `POST /v1/runs` with the arguments as its body, and `idempotency_key` as its `Idempotency-Key` —
 * checked here as the route checks the header, since a key with a line break or a character past
 * U+00FF cannot be put in a header at all.
 */
export function startRunCall(args: Record<string, unknown>): CallOrError {
  const { idempotency_key: key, ...body } = args;
  if (key === undefined) return { method: 'POST', path: '/v1/runs', body };
  if (typeof key !== 'string')
    return {
      error: `idempotency_key must be a string (1–255 printable ASCII characters); got ${echo(key)}`,
    };
  const parsed = parseIdempotencyKey(key);
  if (!parsed.ok || parsed.key === undefined)
    return {
      code: 'invalid_idempotency_key',
      error: (parsed.ok ? 'idempotency_key is empty' : parsed.message).replace(
        `The ${IDEMPOTENCY_KEY_HEADER} header`,
        'idempotency_key',
      ),
    };
  return { method: 'POST', path: '/v1/runs', body, headers: { [IDEMPOTENCY_KEY_HEADER]: parsed.key } };
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
      return { error: `${name} must be a string, a number or a boolean; got ${echo(value)}` };
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
    const message = unknownKeysMessage(unknown, known, { listKnown: false }).replace(
      /^Unknown key/,
      'Unknown argument',
    );
    return `${message}; ${known.length === 0 ? 'this tool takes no arguments' : `the arguments are ${known.join(', ')}`}`;
  }
  const missing = required.find((k) => args[k] === undefined);
  return missing === undefined ? null : `${missing} is required; the arguments are ${known.join(', ')}`;
}

/**
 * `get_run`'s request, once its `step_ids` (if given) are 1–{@link MCP_STEP_IDS_MAX} step ids: the
 * run's route takes no query, so they shape the answer (mcp-run-answer.ts), not the request.
 */
export function getRunCall(args: Record<string, unknown>): CallOrError {
  const ids = args.step_ids;
  if (ids !== undefined) {
    if (!Array.isArray(ids) || ids.length === 0 || !ids.every((id) => typeof id === 'string'))
      return { error: `step_ids must be a list of step ids (1 to ${MCP_STEP_IDS_MAX}); got ${echo(ids)}` };
    if (ids.length > MCP_STEP_IDS_MAX)
      return {
        error: `step_ids names at most ${MCP_STEP_IDS_MAX} steps a call (got ${ids.length}): ask for the others in another call`,
      };
  }
  return onRun(args, 'GET', '');
}

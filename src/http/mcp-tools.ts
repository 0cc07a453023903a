/**
 * The tools edgeplan serves at `/mcp` (SPEC §8's six, and `list_tools` so a model can write a plan's
 * actions), each one route of the API: its arguments are the route's body (plus `run_id` for a run's
 * routes), and its result is the route's JSON answer.
 */
import type { OpenApiRoute } from './mcp-input-schemas';

/** The API request a tool call becomes. */
export type ApiCall = {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  /** Request headers the call carries beside the caller's Authorization (`Idempotency-Key`). */
  headers?: Record<string, string>;
};

export type McpApiTool = {
  name: string;
  /** What a model reads to decide what to pass: the arguments, the answer, what follows. */
  description: string;
  /** The route whose request body the arguments are (`tools/list` documents them from it); null: none. */
  body: OpenApiRoute | null;
  /** Whether the tool takes a `run_id` beside the body. */
  runId: boolean;
  /** Arguments the tool takes beside the body that are not part of it (JSON Schemas by name). */
  extra?: Record<string, Record<string, unknown>>;
  /** The request for these arguments, or why there can be none. */
  call(args: Record<string, unknown>): ApiCall | { error: string };
};

/** `/v1/runs/<id><suffix>`, or an error when `run_id` is missing. */
function runPath(args: Record<string, unknown>, suffix: string): { path: string } | { error: string } {
  const id = args.run_id;
  if (id === undefined || id === '') return { error: 'run_id is required: the id of the run (run_…)' };
  if (typeof id !== 'string')
    return { error: `run_id must be a string, the id of the run (run_…); got ${JSON.stringify(id)}` };
  return { path: `/v1/runs/${encodeURIComponent(id)}${suffix}` };
}

/** The arguments without `run_id`: the body of a run's route. */
function bodyOf(args: Record<string, unknown>): Record<string, unknown> {
  const { run_id: _, ...body } = args;
  return body;
}

function onRun(args: Record<string, unknown>, method: ApiCall['method'], suffix: string, body?: unknown) {
  const at = runPath(args, suffix);
  return 'error' in at ? at : { method, path: at.path, ...(body === undefined ? {} : { body }) };
}

/** `start_run`'s `idempotency_key`: sent as the request's `Idempotency-Key` header, not in its body. */
const IDEMPOTENCY_KEY_ARGUMENT = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  description:
    'Makes the call safe to repeat: the same key with the same arguments returns the run the first call started (1–255 printable ASCII characters, e.g. a UUID); the key with other arguments is refused (idempotency_key_reused)',
};

/** `POST /v1/runs` with the arguments as its body, and `idempotency_key` as its `Idempotency-Key`. */
function startRunCall(args: Record<string, unknown>): ApiCall | { error: string } {
  const { idempotency_key: key, ...body } = args;
  if (key === undefined) return { method: 'POST', path: '/v1/runs', body };
  if (typeof key !== 'string')
    return {
      error: `idempotency_key must be a string (1–255 printable ASCII characters); got ${JSON.stringify(key)}`,
    };
  return { method: 'POST', path: '/v1/runs', body, headers: { 'Idempotency-Key': key } };
}

/**
 * The tools, in `tools/list` order.
 * @example MCP_API_TOOLS.find((t) => t.name === 'get_run')!.call({ run_id: 'run_1' }); // GET /v1/runs/run_1
 */
export const MCP_API_TOOLS: readonly McpApiTool[] = [
  {
    name: 'plan_goal',
    description:
      'Plan a goal without running it (POST /v1/plans): pass {goal} (and optionally strategy, max_steps, model, input); returns {plan, validation, success}, the validated plan and its estimates. A goal the built-in rules cannot plan needs an LLM configured on the server (error planning_unavailable otherwise).',
    body: { method: 'post', path: '/v1/plans' },
    runId: false,
    call: (args) => ({ method: 'POST', path: '/v1/plans', body: args }),
  },
  {
    name: 'validate_plan',
    description:
      'Check a plan without running it (POST /v1/plans/validate): pass {plan: {goal, steps: [{id, action, parameters, dependencies}]}}, where action is a registered tool name and a parameter may reference an earlier result as "{{ steps.<id>.output.<path> }}"; or {format, source} for TEA YAML or LLMCompiler text. Returns {valid, errors: [{code, message, step_id}], estimates}; an unknown_tool finding lists the registered tools.',
    body: { method: 'post', path: '/v1/plans/validate' },
    runId: false,
    call: (args) => ({ method: 'POST', path: '/v1/plans/validate', body: args }),
  },
  {
    name: 'start_run',
    description:
      'Start a run (POST /v1/runs): pass {plan} (as validate_plan takes it), {goal} for the server to plan, or {format, source}; optionally config (execution_mode, retry_failed_steps, require_plan_approval, …), input, and idempotency_key (a UUID you make: calling again with it and the same arguments returns the run it started instead of starting another, so a call whose answer was lost can be repeated safely). Returns {run_id, status, links} at once and the run goes on: follow it with get_run. An invalid plan is an error listing every finding.',
    body: { method: 'post', path: '/v1/runs' },
    runId: false,
    extra: { idempotency_key: IDEMPOTENCY_KEY_ARGUMENT },
    call: startRunCall,
  },
  {
    name: 'list_tools',
    description:
      "The actions a plan's steps may name (GET /v1/tools): no arguments; returns {tools: [{name, description, version, input_schema, output_schema, idempotent, deterministic}], unavailable: [{server, name?, reason}]} (MCP servers that could not be listed and MCP tools left out, with why). Call it before writing a plan for validate_plan or start_run: a step's action is one of these names and its parameters fit that tool's input_schema.",
    body: null,
    runId: false,
    call: () => ({ method: 'GET', path: '/v1/tools' }),
  },
  {
    name: 'get_run',
    description:
      'A run (GET /v1/runs/:id): {run_id}; returns its status (planning, awaiting_approval, running, awaiting_input, completed, failed, aborted, cancelled), plan, step_statuses, step_results, counts, final_output and error. Call again until the status is completed, failed, aborted or cancelled.',
    body: null,
    runId: true,
    call: (args) => onRun(args, 'GET', ''),
  },
  {
    name: 'approve_run',
    description:
      'Decide on the plan of a run in awaiting_approval (POST /v1/runs/:id/approval): {run_id, decision: "approve" | "reject" | "modify", comment?}; "modify" takes a whole new plan or a list of edits, validated before the run goes on.',
    body: { method: 'post', path: '/v1/runs/{id}/approval' },
    runId: true,
    call: (args) => onRun(args, 'POST', '/approval', bodyOf(args)),
  },
  {
    name: 'cancel_run',
    description:
      'Cancel a run that has not ended (POST /v1/runs/:id/cancel): {run_id, reason?}. Steps that completed keep their results.',
    body: { method: 'post', path: '/v1/runs/{id}/cancel' },
    runId: true,
    call: (args) => onRun(args, 'POST', '/cancel', bodyOf(args)),
  },
];

/**
 * The tools edgeplan serves at `/mcp` (SPEC §8), each one route of the API: its arguments are the
 * route's body — or, for a GET, its query — plus `run_id` for a run's routes, and its result is the
 * route's JSON answer. Together they let an agent drive a run end to end: plan, validate, start, wait,
 * read its events, approve, answer, revise, retry, cancel, and list runs.
 */
import type { OpenApiRoute } from './mcp-input-schemas';
import { boundedRun, MCP_RUN_CHARS, MCP_STEP_IDS_MAX, runSteps } from './mcp-run-answer';
import {
  bodyOf,
  getOnRun,
  getRunCall,
  getWithQuery,
  onRun,
  startRunCall,
  type CallError,
  type CallOrError,
} from './mcp-tool-calls';
import { textStart } from '../text-cut';

export type { ApiCall } from './mcp-tool-calls';

export type McpApiTool = {
  name: string;
  /** What a model reads to decide what to pass: the arguments, the answer, what follows. */
  description: string;
  /** The route whose request body the arguments are (`tools/list` documents them from it); null: none. */
  body: OpenApiRoute | null;
  /** The GET route whose query parameters the arguments are (`tools/list` documents them from it). */
  query?: OpenApiRoute;
  /** Whether the tool takes a `run_id` beside the body. */
  runId: boolean;
  /** Arguments the tool takes beside the body that are not part of it, or that describe it better (JSON Schemas by name). */
  extra?: Record<string, Record<string, unknown>>;
  /**
   * Only the listed arguments are taken, any other refused before the route is asked — for a route
   * that takes any object (a misspelt `step_id` would turn an answer into new information) or reads
   * a query (which drops a parameter it does not know). `required`: arguments beside `run_id` that must be given.
   */
  closed?: { required?: string[] };
  /** The request for these arguments, or why there can be none. */
  call(args: Record<string, unknown>): CallOrError;
  /**
   * The tool's result from the route's 2xx JSON (`chars`: its length), when it is not that JSON
   * as it is — a run bounded to what a model can read (mcp-run-answer.ts).
   */
  answer?(
    json: Record<string, unknown>,
    chars: number,
    args: Record<string, unknown>,
  ): Record<string, unknown> | CallError;
};

/** `start_run`'s `idempotency_key`: sent as the request's `Idempotency-Key` header, not in its body. */
const IDEMPOTENCY_KEY_ARGUMENT = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  description:
    'Makes the call safe to repeat: the same key with the same arguments returns the run the first call started (1–255 printable ASCII characters, e.g. a UUID); the key with other arguments is refused (idempotency_key_reused)',
};

/** `get_run`'s `step_ids`: the steps to read whole from a run answered in part. */
const STEP_IDS_ARGUMENT = {
  type: 'array',
  items: { type: 'string' },
  minItems: 1,
  maxItems: MCP_STEP_IDS_MAX,
  description: `Only these steps (their plan entries, statuses, details and results): to read steps a run answered in part left out (up to ${MCP_STEP_IDS_MAX} a call)`,
};

/** A run in part when it is too big to read whole (`get_run` with `step_ids`: those steps only). */
function runAnswer(
  json: Record<string, unknown>,
  chars: number,
  args: Record<string, unknown>,
): Record<string, unknown> | CallError {
  const ids = args.step_ids as string[] | undefined;
  if (ids === undefined) return boundedRun(json, chars);
  const picked = runSteps(json, ids);
  if (picked.ok) return picked.run;
  const names = picked.unknown.slice(0, 5).map((id) => JSON.stringify(textStart(id, 80)));
  const more = picked.unknown.length > 5 ? ` and ${picked.unknown.length - 5} more` : '';
  return {
    code: 'not_found',
    error: `The run has no step ${names.join(', ')}${more}: step_ids are ids of its plan's steps (plan.steps[].id, the keys of step_statuses)`,
  };
}

/** `wait_for_run`'s `{timed_out, run}`, its run bounded as `get_run`'s. */
function waitAnswer(json: Record<string, unknown>, chars: number): Record<string, unknown> {
  const run = json.run;
  if (chars <= MCP_RUN_CHARS || typeof run !== 'object' || run === null) return json;
  return { ...json, run: boundedRun(run as Record<string, unknown>, JSON.stringify(run).length) };
}

/** `answer_input`'s `input`, which the route's open body documents as any value. */
const ANSWER_ARGUMENT = {
  description:
    'The answer (any JSON value: text, a number, an object), or the new information; for a failed step the run asks about, {"action": "retry" | "skip" | "replan" | "abort"}',
};

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
      'Start a run (POST /v1/runs): pass {plan} (as validate_plan takes it), {goal} for the server to plan, or {format, source}; optionally config (execution_mode, retry_failed_steps, require_plan_approval, …), input, and idempotency_key (a UUID you make: calling again with it and the same arguments returns the run it started instead of starting another, so a call whose answer was lost can be repeated safely). Returns {run_id, status, links} at once and the run goes on: follow it with wait_for_run (or get_run). An invalid plan is an error listing every finding.',
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
    // A GET reads no body, so an argument would be dropped unseen: refused, as the other reads do.
    closed: {},
    call: () => ({ method: 'GET', path: '/v1/tools' }),
  },
  {
    name: 'get_run',
    description: `A run (GET /v1/runs/:id): {run_id, step_ids?}; returns its status (planning, awaiting_approval, running, awaiting_input, completed, failed, aborted, cancelled), plan, step_statuses, steps, step_results, counts, final_output, error, last_seq, and pending_approval (while awaiting_approval: the plan_version to decide on, its deadline_at, and changes since the last approved version). A run whose JSON is over ${MCP_RUN_CHARS.toLocaleString('en-US')} characters is answered in part, with a "partial" note saying what was left out and how to read it: the steps that fit (failed, running and retrying ones first), long values as {$elided: {bytes, ref}} markers (read them with get_run_value); step_ids: only those steps, to read ones left out. To wait for a status, call wait_for_run rather than this again and again.`,
    body: null,
    runId: true,
    extra: { step_ids: STEP_IDS_ARGUMENT },
    closed: {},
    call: getRunCall,
    answer: runAnswer,
  },
  {
    name: 'get_run_value',
    description:
      'One value of a run, whole (GET /v1/runs/:id/values): {run_id, ref} — ref as a plan references it: "steps.<id>.output" (a step\'s result), a part of it ("steps.<id>.output.items[0]"), "state.<key>", "input" or "final_output"; returns {ref, value}. Where a run\'s answer puts a marker {$elided: {bytes, ref}} for a value too long to include, pass that ref (a long one\'s bytes say its size: ask for a part of it if that is too much to read).',
    body: null,
    query: { method: 'get', path: '/v1/runs/{id}/values' },
    runId: true,
    closed: {},
    call: (args) => getOnRun(args, '/values'),
  },
  {
    name: 'approve_run',
    description:
      'Decide on the plan of a run in awaiting_approval — approve it, reject it, or modify it (POST /v1/runs/:id/approval): {run_id, decision: "approve" | "reject" | "modify", comment?, approver?, plan_version?}. Read the run first (get_run): its plan, and its pending_approval — {plan_version, deadline_at, default_action, last_approved_version, changes}, default_action being what happens at deadline_at if nobody decides,, where changes says what this version adds, changes and removes since the last approved one (null for a first plan: read plan). "reject" ends the run (cancelled, termination_reason plan_rejected); "modify" takes a whole new plan or a list of edits, validated before the run goes on. comment: why; approver: the decider’s name (yours, or your user’s), recorded with the decision (behind Cloudflare Access the signed-in identity is recorded instead, and another name is refused: approver_mismatch). plan_version: pending_approval.plan_version as you read it — when the run awaits another version by the time you decide (a rollback or a revision came between), conflict plan_version_changed: read it again. Returns {run_id, status}; a run no longer awaiting approval is conflict run_status.',
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
  {
    name: 'wait_for_run',
    description:
      'Wait for a run instead of calling get_run again and again (GET /v1/runs/:id/wait): {run_id, until?, timeout_s?, after?}. until: "terminal" (default; it ended), "waiting" (it waits for you or a person: awaiting_approval or awaiting_input — or it ended), "any_change" (it records any new event after `after`, default its last when you call). Answers as soon as the run gets there (at once if it is there already), or after timeout_s (1–50, default 25): {timed_out, run} — run as get_run returns it (in part when it is big); timed_out: true means it is not there yet, so call again to wait longer. Then: approve_run for awaiting_approval, answer_input for awaiting_input.',
    body: null,
    query: { method: 'get', path: '/v1/runs/{id}/wait' },
    runId: true,
    closed: {},
    call: (args) => getOnRun(args, '/wait'),
    answer: waitAnswer,
  },
  {
    name: 'get_run_events',
    description:
      "A run's trace (GET /v1/runs/:id/events): {run_id, after?, limit?}; returns {events, next_after, has_more} — the events with a seq greater than after (default 0: from the start), in order, at most limit (1–1000, default 500); while has_more, call again with after = next_after. Each event is {seq, event_type, timestamp, references: {step_id, plan_version, …}, payload}: e.g. ToolReturned (a step's output or error), InputRequested (payload {step_id, prompt, deadline, if_unanswered}: the question a human.input step asks, due at deadline), ApprovalRequested, PlanUpdated (a revision), RunTerminated (reason). To read only what is new, pass the last seq you saw (or a run's last_seq).",
    body: null,
    query: { method: 'get', path: '/v1/runs/{id}/events' },
    runId: true,
    closed: {},
    call: (args) => getOnRun(args, '/events'),
  },
  {
    name: 'answer_input',
    description:
      'Answer the question a run waits on, or give a running run new information (POST /v1/runs/:id/input): {run_id, input, step_id?, question_seq?, approver?}. A run in awaiting_input waits on a question — a human.input step’s, or how to go on after a step failed: its question is the last InputRequested event (get_run_events; payload {step_id, prompt}, and its seq). A human.input step’s question says when it is due: payload.deadline (ISO 8601), after which if_unanswered happens — asked_again (the step retries and asks again, with retries_left retries left), falls_back (its fallback_action runs) or step_fails; answer before it, or tell your user by when. A failed step’s question has no deadline. Pass that step_id and that event’s seq as question_seq with the answer, so it answers that question only: a second answer is refused (conflict input_not_awaited) instead of being taken as new information, and one arriving after the question was answered and the step asked again is refused (question_closed, saying who answered what and the seq of the question asked now: read that one) instead of answering the new question. Without step_id, input is new information, which may revise the plan. approver: who answers (yours, or your user’s name), recorded on the InputReceived event as answered_by, with answered_by_via saying how the name was established ("token": stated by you with the API token, not verified; behind Cloudflare Access the signed-in identity is recorded instead, answered_by_via "access", and another name is refused: approver_mismatch). Returns {run_id, status}; follow the run with wait_for_run.',
    body: { method: 'post', path: '/v1/runs/{id}/input' },
    runId: true,
    extra: { input: ANSWER_ARGUMENT },
    closed: { required: ['input'] },
    call: (args) => onRun(args, 'POST', '/input', bodyOf(args)),
  },
  {
    name: 'replan_run',
    description:
      'Ask a run to revise the rest of its plan (POST /v1/runs/:id/replan): {run_id, reason} — what should change, and why; the planner reads it. Completed steps keep their results; the new plan version may need approval (approve_run). Needs an LLM planner on the server (planning_unavailable otherwise); while a revision is being made, conflict revision_in_progress. Returns {run_id, status}.',
    body: { method: 'post', path: '/v1/runs/{id}/replan' },
    runId: true,
    call: (args) => onRun(args, 'POST', '/replan', bodyOf(args)),
  },
  {
    name: 'retry_run',
    description:
      'Run a failed, aborted or cancelled run again from its failed step(s) (POST /v1/runs/:id/retry): {run_id, step_id?} — step_id: that failed step only. Completed steps keep their results and are not run again; a run whose planning failed is planned again. Returns {run_id, status}; a run still going is conflict run_not_retryable.',
    body: { method: 'post', path: '/v1/runs/{id}/retry' },
    runId: true,
    call: (args) => onRun(args, 'POST', '/retry', bodyOf(args)),
  },
  {
    name: 'list_runs',
    description:
      "Runs, newest first (GET /v1/runs): {status?, limit?, cursor?, parent_run_id?, top_level?}; returns {runs: [{run_id, status, goal, step_count, created_at, completed_at, termination_reason, parent_run_id, …}], next_cursor} — pass next_cursor as cursor for the next page (null: none). parent_run_id: the child runs that run's steps started; top_level: true, only runs no step started.",
    body: null,
    query: { method: 'get', path: '/v1/runs' },
    runId: false,
    closed: {},
    call: (args) => getWithQuery('/v1/runs', args),
  },
];

/**
 * Every error code edgeplan itself gives, in one table (STYLE §7): what it means and, for the codes
 * an API response can carry, the HTTP status it is sent with. `status: null` codes appear only in run
 * data — a step's error, `run.error`, an event — never as a response's code. Tools a team writes may
 * use codes of their own in `ToolError`; everything edgeplan raises is a row here, so the compiler
 * refuses a code nobody mapped (which would otherwise surface as a 500).
 */
/** The statuses the API sends errors with. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 409 | 410 | 413 | 415 | 422 | 426 | 429 | 500 | 503;

type Row = { status: ErrorStatus | null; about: string };

export const ERROR_CODES = {
  // ---- a request the API refused (the client can fix it) ------------------------------------------
  invalid_request: {
    status: 400,
    about:
      'The body or a parameter fails its schema (details name the fields), an answer to a human.input step does not fit the JSON Schema its question gave (details.reason: "answer_does_not_fit", details.issues; the step still waits), the body broke off before it was read in full (details.body: "unreadable"; send it again), or a run names an approval webhook_url this deployment cannot send (no WEBHOOK_SECRET, or a host HTTP_ALLOWLIST does not allow; the message says which).',
  },
  invalid_json: {
    status: 400,
    about:
      'The body is not parseable JSON, not UTF-8 (details.position: the first byte that is not), or holds a string that escapes half a surrogate pair ("\\ud800", which no UTF-8 can carry; details.path: where).',
  },
  invalid_idempotency_key: {
    status: 400,
    about:
      'An Idempotency-Key header (POST /v1/runs) that is empty, longer than 255 characters or holds a character outside printable ASCII.',
  },
  unauthorized: {
    status: 401,
    about:
      'No or a wrong bearer token (one of those API_TOKEN holds), no API_TOKEN set and ALLOW_ANONYMOUS not true, or an API_TOKEN of only separators.',
  },
  access_token_invalid: {
    status: 401,
    about:
      'Cloudflare Access is configured (ACCESS_TEAM_DOMAIN, ACCESS_AUD) and the request’s Cf-Access-Jwt-Assertion failed a check; details.check names it: malformed, algorithm (not RS256), unknown_key, signature, audience, issuer, expired, not_yet_valid, or identity (no email or service token common_name). Sign in through Access again; a request that skips Access sends no such header and uses the API token.',
  },
  approver_mismatch: {
    status: 400,
    about:
      'A caller signed in through Cloudflare Access gave an `approver` (with an approval decision, or with an answer to `/input`) other than who they are: with Access the approver is the verified identity (the message names it); leave `approver` out or send that one.',
  },
  forbidden: { status: 403, about: 'A capability token (the approval link) that does not fit.' },
  cross_site_request: {
    status: 403,
    about:
      'A browser sent a request that changes something (or a WebSocket upgrade) from a page on another site (`Sec-Fetch-Site: cross-site` or `same-site`) whose origin CORS_ORIGINS does not name, with no Authorization header or bearer subprotocol: it would have acted on the browser’s Cloudflare Access cookie, or a local ALLOW_ANONYMOUS server, for that page. details.origin names the page’s origin. Send the API token from that page, or add its origin to CORS_ORIGINS. Also a browser’s CORS preflight (OPTIONS) from an origin CORS_ORIGINS does not name, answered before any token is asked for (a preflight carries none): add the origin to CORS_ORIGINS.',
  },
  not_found: { status: 404, about: 'No such run, plan version, step or route.' },
  method_not_allowed: {
    status: 405,
    about: 'The path exists, but not for this method; the Allow header lists the ones it takes.',
  },
  conflict: { status: 409, about: 'The run is not in a state that allows this; details.reason says why.' },
  question_closed: {
    status: 409,
    about:
      'An answer naming its question (`question_seq`: the seq of the InputRequested event that asked it) that the run no longer asks: it was answered (details.answered_by: by whom, where the run knows it; details.decided: with what, for a failed step’s question; details.answered_at: when, for a human.input step’s), the step asks again as another question (details.asked_now: its seq; read it and answer that one), or the run went on or ended (details.status). Nothing was taken. An answer without question_seq answers whatever question the run asks when it arrives.',
  },
  gone: {
    status: 410,
    about:
      'A link that worked once and no longer does (used, expired, or its run no longer awaits approval).',
  },
  approval_link_superseded: {
    status: 410,
    about:
      'An approval link a newer one replaced: a revision or a rollback asked about a newer plan version and a new link went out (or the link was made again). details: asked_version (the version this link asked about), awaited_version (the one that awaits approval now, or null when the run no longer awaits one), status. Use the newest link, or decide on the run’s page. The run recognises its last 8 earlier links; an older one, or a token it never sent, is 403 forbidden.',
  },
  payload_too_large: {
    status: 413,
    about: 'The body is over the size limit (5 MiB), or a TEA workflow’s YAML `source` over its own (1 MiB).',
  },
  unsupported_media_type: {
    status: 415,
    about: 'A body that is not JSON, or is compressed or in a charset other than UTF-8.',
  },
  invalid_plan: { status: 422, about: 'A plan with validation findings where a valid one is needed.' },
  idempotency_key_reused: {
    status: 422,
    about:
      'POST /v1/runs with an Idempotency-Key that already created a run (details.run_id) from a different body: send the same body to get that run again, or a new key for a new run.',
  },
  planning_unavailable: {
    status: 422,
    about:
      'A goal was sent, or a revision asked for (POST /v1/runs/:id/replan), but no planner can make it: no rule-based plan matches (a revision always needs the LLM) and no LLM is configured. Set OPENAI_API_KEY, or OPENAI_BASE_URL for an OpenAI-compatible endpoint — locally in .dev.vars or `npm start -- --var OPENAI_BASE_URL:…`, deployed with `wrangler secret put OPENAI_API_KEY` (README, Goals and planning).',
  },
  planning_failed: {
    status: 422,
    about: 'Every model, repair and the rule planner failed; the trace is in details.',
  },
  value_too_large: {
    status: 422,
    about: 'A value asked for (GET /v1/runs/:id/values) is larger than one response carries.',
  },
  upgrade_required: { status: 426, about: 'The WebSocket route without an upgrade.' },
  rate_limited: {
    status: 429,
    about:
      'Too many requests for this token or address (the RATE_LIMITER binding): send again after Retry-After seconds. Refused before anything ran, so edgeplan/client and the CLI send any request again by themselves after it (within their 2 minutes of waits; `retry: false`, `--no-retry`: not).',
  },
  too_many_sockets: {
    status: 429,
    about:
      'A run’s WebSocket (GET /v1/runs/:id/ws) when the run has 100 sockets open already, refused before the upgrade (details.open, details.max_sockets): follow the run over HTTP (GET /v1/runs/:id/wait, /events) or close a socket no longer read; Retry-After says when to try again. A GET of the same path without the upgrade answers it too while it holds (else 426), as a browser learns why its socket failed. edgeplan/client’s watch() follows over GET /wait instead by itself (transport "auto", its default; onTransport says so), and the dashboard says it follows the run that way.',
  },
  internal: { status: 500, about: 'A bug of ours; logged.' },
  decision_failed: {
    status: 500,
    about:
      'The run object’s decision on an input threw (a bug of ours, or a plan that runs the engine out of stack); the message names the error, and it is logged as decision_failed. For POST /v1/runs nothing of the run is kept; for a request on a run (input, approval, cancel, retry, replan, rollback) nothing of it was applied and the run is as it was. When the run’s own work threw (a step result, a deadline, a planner’s answer), the run ends failed with this code as run.error instead of meeting the same throw on every wake.',
  },
  misconfigured: {
    status: 500,
    about:
      'The Worker lacks a binding, the run object’s SQLite storage or D1’s tables, or has only one of ACCESS_TEAM_DOMAIN and ACCESS_AUD (or a team domain that is not an https origin); the message says what to add.',
  },
  run_unreadable: {
    status: 500,
    about:
      'The run’s stored state does not fit this release’s schema (another release wrote it); the message names the row. DELETE /v1/runs/:id?force=true deletes such a run without reading it.',
  },
  run_newer_format: {
    status: 503,
    about:
      'The run’s object was written by a newer release (its storage format is newer than this one reads: a rollback); it is left unchanged and waits — deploy the newer release again (docs/upgrading.md). It cannot be deleted meanwhile, `?force=true` included. Sent with `Retry-After` (300 s) — longer than edgeplan/client waits for one request by default (`maxRetryWaitMs`, 2 minutes), so it is answered at once; with a longer one the client sends any request again (nothing was changed).',
  },
  deploy_in_progress: {
    status: 503,
    about:
      'POST /v1/runs (or a child run) with require_plan_approval and approval.revisions "ask" reached a run object still on the release before (a deploy rolling out): that release would ask for the approval of the first plan only. The run was removed before anything of it ran; send the same request again after `Retry-After` (60 s) — with the same Idempotency-Key it then creates the run. edgeplan/client’s createRun and `edgeplan run` do so by themselves, with their key.',
  },
  access_keys_unavailable: {
    status: 503,
    about:
      'Cloudflare Access is configured and its signing keys (<ACCESS_TEAM_DOMAIN>/cdn-cgi/access/certs) could not be fetched or read, so the request’s Cf-Access-Jwt-Assertion could not be checked; nothing ran. Sent with `Retry-After`; send the request again.',
  },
  deletion_pending: {
    status: 503,
    about:
      'DELETE /v1/runs/:id began (the run already answers 404) but D1, KV or a child run could not be reached to finish it, or the run has more child runs and plan-version copies than one invocation may delete (`SUBREQUESTS_PER_INVOCATION`); the run’s object finishes by itself (within a minute; within seconds when only the limit stopped it), or DELETE again. Sent with `Retry-After`; edgeplan/client’s deleteRun and `edgeplan delete` send the DELETE again by themselves after it (a 404 then: it finished meanwhile, and is answered as deleted).',
  },

  // ---- why the run's object refused an input (mapped to not_found / conflict / … by the API) --------
  run_not_found: { status: 404, about: 'No run with this id.' },
  run_exists: { status: 409, about: 'A run with this id was already created.' },
  run_not_started: { status: 409, about: 'The in-process runner was not started.' },
  run_finished: { status: 409, about: 'The run already ended.' },
  run_active: { status: 409, about: 'A run that has not ended cannot be deleted: cancel it first.' },
  run_deleted: {
    status: 409,
    about:
      'The run with this id was deleted less than a minute ago: its id (an Idempotency-Key sent again) starts a new run after `details.retry_after_s` (the API answers 409 conflict, reason run_deleted, with Retry-After).',
  },
  run_not_retryable: { status: 409, about: 'Only failed, aborted or cancelled runs can be retried.' },
  step_not_retryable: { status: 409, about: 'The step did not fail, so there is nothing to retry.' },
  value_not_found: { status: 404, about: 'GET /v1/runs/:id/values?ref= names no stored value.' },
  unknown_step: { status: 404, about: 'The run has no step with this id.' },
  duplicate_step: { status: 409, about: 'A streamed step whose id already arrived.' },
  revision_in_progress: { status: 409, about: 'A revision was already asked for and is being produced.' },
  max_revisions: { status: 409, about: 'Max replans exceeded (max_revisions).' },
  invalid_decision: { status: 400, about: 'An approval decision that cannot be applied.' },
  invalid_options: {
    status: null,
    about: 'Library options that do not hold (PlanningPattern, an agent’s `llm`, LocalRunner, mcpTools).',
  },
  htn_invalid: { status: null, about: 'An HTN domain that cannot decompose the task.' },
  htn_no_method: { status: null, about: 'No HTN method applies to a compound task.' },
  htn_too_deep: { status: null, about: 'HTN decomposition went deeper than its limit.' },
  no_rule_matched: { status: null, about: 'No rule of the rule-based planner matches the goal.' },

  // ---- validation findings (SPEC §2; details.errors of invalid_plan) --------------------------------
  schema: { status: null, about: 'Not a well-formed plan (zod paths in the message).' },
  unknown_dependency: { status: null, about: 'Unknown subtask: a dependency or reference names no step.' },
  cycle: { status: null, about: 'Cycle detected: the message names the whole cycle.' },
  too_many_steps: { status: null, about: 'More steps than max_steps.' },
  too_deep: { status: null, about: 'Sub-plans (or an imported source) nested deeper than the limit.' },
  token_budget: { status: null, about: "Estimated tokens over the run's token_budget." },
  missing_dependencies: {
    status: null,
    about: 'require_dependencies is on and a step has no dependencies list.',
  },
  missing_fallback: { status: null, about: 'require_fallbacks is on and a step has no fallback.' },
  bad_reference: {
    status: null,
    about:
      "A reference that does not parse, or does not fit what it reads (the producing step's output schema, the run's input).",
  },

  // ---- import problems (details.errors of an import that does not convert) --------------------------
  not_tool_calls: { status: null, about: 'A plan given as an array that is not seed-004 tool calls.' },
  bad_call: { status: null, about: 'A tool call that is not an object.' },
  missing_tool: { status: null, about: 'A tool call without _tool.' },
  unsupported_field: { status: null, about: 'A tool call carrying _output (already carried out).' },
  unknown_meta_key: { status: null, about: 'An underscore key a tool call does not know.' },
  bad_output_path: { status: null, about: 'An _outputPath that does not parse.' },
  empty_plan: { status: null, about: 'An LLMCompiler source with no steps.' },
  after_join: { status: null, about: 'An LLMCompiler step after join().' },
  bad_line: { status: null, about: 'An LLMCompiler line that is not a step.' },
  bad_arguments: { status: null, about: 'LLMCompiler arguments that do not parse.' },
  yaml_syntax: { status: null, about: 'TEA YAML that does not parse.' },
  bad_workflow: { status: null, about: 'A TEA workflow without nodes.' },
  bad_node: { status: null, about: 'A TEA node that is not an object with a name.' },
  duplicate_node: { status: null, about: 'Two TEA nodes share a name.' },
  unknown_node: { status: null, about: 'Navigation to a TEA node that does not exist.' },
  unsupported_node: { status: null, about: 'A TEA node feature edgeplan does not run (run:, loops, …).' },
  unsupported_navigation: { status: null, about: 'TEA navigation edgeplan does not follow (conditions).' },
  navigation_loop: { status: null, about: 'TEA navigation that loops.' },
  unsupported_template: { status: null, about: 'A TEA template feature edgeplan does not render.' },
  template_error: {
    status: null,
    about: 'A TEA Jinja template that does not parse (at import) or fails to render (at run time).',
  },
  max_iterations: { status: null, about: 'A TEA graph run entered a node more than max_iterations times.' },
  no_route: { status: null, about: 'After a TEA node no navigation condition held.' },
  state_schema: { status: null, about: "A TEA workflow's state does not fit its state_schema." },
  missing_state: {
    status: null,
    about: 'A state key a TEA workflow reads before any node writes it, absent from input.',
  },

  // ---- approval webhooks (verifyWebhook, sendApprovalWebhook) -------------------------------------
  missing_headers: { status: null, about: 'A webhook without its webhook-* headers.' },
  stale_timestamp: { status: null, about: 'A webhook timestamp outside the tolerance.' },
  bad_signature: { status: null, about: 'No webhook signature matches the body.' },
  invalid_payload: { status: null, about: 'A webhook body that is not JSON.' },
  invalid_webhook_id: { status: null, about: 'A webhook id that cannot be a header value.' },
  invalid_webhook_secret: {
    status: null,
    about:
      'A WEBHOOK_SECRET (or one secret it lists) that is not base64 after its whsec_ prefix, one of separators only, or none set when a run with a webhook_url sends its webhook.',
  },

  // ---- how planning ended, in run data -------------------------------------------------------------
  planning_timeout: {
    status: null,
    about: 'Planning did not finish after its attempts (lost or past the deadline).',
  },
  judge_timeout: {
    status: null,
    about: 'The LLM judge did not answer after its attempts; the output stands.',
  },
  revision_failed: { status: null, about: 'The planner could not produce the next plan version.' },
  revision_declined: {
    status: null,
    about: 'The reviser chose to stop the run (aborted, partial results kept).',
  },
  no_plan: { status: null, about: 'A plan.* tool was given no plan ("No plan provided").' },

  // ---- how a step or a run failed, in run data ----------------------------------------------------
  tool_error: { status: null, about: 'The tool threw an error without a code.' },
  timeout: { status: null, about: 'An attempt or call ran past its time limit.' },
  aborted: { status: null, about: 'The attempt was stopped (the run ended or was revised).' },
  unknown_tool: { status: null, about: 'The step names no registered tool.' },
  invalid_parameters: {
    status: null,
    about:
      "The step's resolved parameters fail the tool's input schema, or name a key a closed object of it (a z.object, additionalProperties: false, also beside minProperties, maxProperties, propertyNames or patternProperties) does not declare or its propertyNames refuse, at any depth; as a finding also a fallback named alone whose tool cannot take the step's parameters it runs with.",
  },
  invalid_output: { status: null, about: "The tool's result fails its declared output schema." },
  missing_input: { status: null, about: 'A referenced value was never written.' },
  bad_output: {
    status: null,
    about: 'A result that cannot go where output_path says (a merge of a non-object).',
  },
  output_too_large: { status: null, about: 'A step output over max_output_bytes.' },
  output_too_deep: {
    status: null,
    about: 'A step output whose arrays and objects nest more than 100 levels deep (a JSON response, say).',
  },
  parameters_too_large: {
    status: null,
    about: "A step's resolved parameters over the limit one call carries.",
  },
  child_run_failed: {
    status: null,
    about: "A step's child run (sub-plan, agent.dispatch) did not complete.",
  },
  child_run_limit: {
    status: null,
    about:
      "A step's child run refused: it would nest more than 10 levels below the run the tree started from, or that run's tree has started as many child runs as it may (1000, or the Worker's MAX_CHILD_RUNS).",
  },
  subplan_failed: { status: null, about: "A step's sub-plan did not complete." },
  needs_runner: { status: null, about: 'agent.dispatch called outside a runner that can start child runs.' },
  unsupported_in_process: {
    status: null,
    about: 'A tool that needs the Worker (Durable Objects) run in process.',
  },
  callback_error: { status: null, about: 'A library callback threw.' },
  step_failed: { status: null, about: 'A step failed after its retries and fallback.' },
  dead_lettered: {
    status: null,
    about: "A step's queue message failed its consumer until the queue gave up (steps-dlq).",
  },
  queue_not_consumed: {
    status: null,
    about:
      "No consumer of the steps queue took a queued attempt in time (a Worker that sends to the queue but has no [[queues.consumers]] for it, or does not export the queue handler; under wrangler dev, also a restart, which loses the local queue's messages): the run carries the attempt out in its object instead (StepRedispatched), and its later steps too.",
  },
  held_past_queue_window: {
    status: null,
    about:
      "A queued attempt no consumer began, which the run's object could only look at long after its queue window ended: the run was held meanwhile (most often a rollback to a release that refused its newer storage format, whose consumers could not begin it either). Carried out in the object (StepRedispatched); its later steps still go to the queue.",
  },
  steps_failed: { status: null, about: 'The run ended with failed steps.' },
  stalled: { status: null, about: 'Steps remain that can never become ready.' },
  stage_input_invalid: {
    status: null,
    about: "A staged run's stage input (the previous stage's output) does not fit the stage's input_schema.",
  },
  stage_output_invalid: {
    status: null,
    about: "A staged run's stage output (its last step's output) does not fit the stage's output_schema.",
  },
  stage_rewinds_exhausted: {
    status: null,
    about: 'A staged run would rewind to an earlier stage more than max_stage_rewinds times.',
  },
  turn_budget_exhausted: {
    status: null,
    about:
      'A ReAct run took `max_turns` tool calls (or its plan reached `max_steps` steps) and its model still wanted to act: the exit criteria were not met. Raise the limit the message names, or make the goal smaller.',
  },
  run_terminated: { status: null, about: 'The step was skipped because the run ended.' },
  address_refused: {
    status: null,
    about: 'http.request to a loopback, private, link-local or metadata address.',
  },
  name_refused: { status: null, about: 'http.request to a single-label or internal host name.' },
  host_not_allowed: { status: null, about: 'http.request to a host outside HTTP_ALLOWLIST.' },
  invalid_url: { status: null, about: 'A URL that is not http(s) or does not parse.' },
  too_many_redirects: { status: null, about: 'More redirects than http.request follows.' },
  response_too_large: { status: null, about: 'A response body over the size limit.' },
  http_error: { status: null, about: 'The network failed, or a redirect was refused.' },
  http_status: { status: null, about: 'A response status the step treats as failure (5xx).' },
  network_error: { status: null, about: 'A connection that failed.' },
  llm_not_configured: { status: null, about: 'llm.call without OPENAI_API_KEY / OPENAI_BASE_URL.' },
  llm_auth_failed: {
    status: null,
    about: 'The LLM endpoint refused the key (401/403, or a 2xx whose error body or stream says so).',
  },
  llm_bad_request: {
    status: null,
    about: 'The LLM endpoint refused the request (another 4xx, or a 2xx whose error body or stream says so).',
  },
  llm_rate_limited: {
    status: null,
    about:
      'The LLM endpoint answered 429, or 2xx with an error body about a rate limit or quota (as LiteLLM, vLLM and some proxies answer) or such an error inside its stream (as OpenAI sends one), quoting its message, type and code.',
  },
  llm_server_error: {
    status: null,
    about:
      'The LLM endpoint answered 5xx, or 2xx with an error body or an error inside its stream saying it is overloaded or failed.',
  },
  llm_unreachable: {
    status: null,
    about:
      'The LLM endpoint could not be reached; the message gives the runtime’s reason (ECONNREFUSED, ENOTFOUND, a TLS error), any URL in it without its user, password or query.',
  },
  llm_empty_response: { status: null, about: 'The LLM answered with no content.' },
  llm_invalid_response: {
    status: null,
    about:
      'The LLM endpoint answered 2xx with something that is not a chat completion (an HTML page, JSON without choices or an error): OPENAI_BASE_URL is likely wrong.',
  },
  llm_error: {
    status: null,
    about:
      'Any other LLM failure: a 2xx error body, or an error inside a stream, whose code and words name no status.',
  },
  judge_unreadable: {
    status: null,
    about: "The LLM judge's answer holds no JSON object with a boolean verdict (ok); the output stands.",
  },
  mcp_config_invalid: {
    status: null,
    about: 'An MCP_SERVERS entry (or mcpTools option) that is malformed; the message names it.',
  },
  mcp_unreachable: {
    status: null,
    about:
      'An MCP server that could not be reached or answered 5xx/429 (retryable; after the wait its Retry-After asks, in the error’s retry_after_ms, when longer than the backoff).',
  },
  mcp_session_lost: {
    status: null,
    about:
      'An MCP server forgot the session it had just opened, twice (it restarts, or its instances do not share sessions); nothing was run (retryable).',
  },
  mcp_error: { status: null, about: 'An MCP server refused the request (a JSON-RPC error or an HTTP 4xx).' },
  mcp_bad_response: {
    status: null,
    about:
      'An MCP server answered with a message the protocol refuses (a malformed result, or the answer to a request it was not sent); not retried, the call may have had its effect.',
  },
  mcp_response_too_large: {
    status: null,
    about: "An MCP server's answer was over the size limit (32 MiB); it was not read further.",
  },
  mcp_tool_not_found: {
    status: null,
    about:
      "An MCP server no longer lists the step's tool (it did when the plan was checked); the listing is refreshed, so revised plans do not offer it.",
  },
  mcp_tool_error: {
    status: null,
    about: "An MCP tool's result had isError; the message is the server's text.",
  },
  demo_flaky: { status: null, about: 'demo.flaky failing on purpose (its first fail_times attempts).' },
  demo_counters_unavailable: { status: null, about: 'The demo tools without their COUNTERS binding.' },
} as const satisfies Record<string, Row>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The codes an API response can carry: those with a status. */
export type ApiErrorCode = {
  [K in ErrorCode]: (typeof ERROR_CODES)[K]['status'] extends null ? never : K;
}[ErrorCode];

/** Whether `code` is a row of {@link ERROR_CODES}. */
export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CODES, code);
}

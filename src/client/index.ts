/**
 * `edgeplan/client`: a typed client of the edgeplan HTTP API. Request and response types come from
 * the OpenAPI document the API serves (generated into api-types.ts); events are a discriminated union
 * on `event_type`; `watch(runId)` follows a run live and resumes after a disconnect. Runs wherever
 * `fetch` does: Node ≥ 20, browsers, Workers.
 * @example
 * const client = createClient({ baseUrl: 'http://localhost:8787' });
 * const { run_id } = await client.createRun({ plan: { goal: 'hi', steps: [{ id: 'a', action: 'demo.echo' }] } });
 * for await (const e of client.watch(run_id)) console.log(e.seq, e.event_type);
 */
import { DEFAULT_PLANNING_TIMEOUT_MS, EdgeplanApiError, makeCall, type ClientOptions } from './http';
import { withRetries } from './retrying-call';
import type {
  ApprovalDecision,
  ControlResult,
  CreatedRun,
  DeletedRun,
  CreateRunRequest,
  DryRun,
  EventsPage,
  ListRunsQuery,
  PlanDiff,
  Me,
  PlanGoalRequest,
  PlanGoalResult,
  PlanVersion,
  PlanVersionList,
  PendingApproval,
  PlanningTrace,
  Run,
  RunEvent,
  RunPage,
  RunStatusView,
  RunValue,
  RunWait,
  Tool,
  UnavailableTool,
  ValidateRequest,
  ValidationResult,
} from './types';
import { watchRun, type WatchOptions } from './watch';
import { createRunWithRetries, type CreateRunOptions } from './create-run';
import { waitRun, type WaitOptions as WaitForRunOptions } from './wait';

export {
  DEFAULT_PLANNING_TIMEOUT_MS,
  DEFAULT_TIMEOUT_MS,
  EdgeplanApiError,
  type ClientOptions,
  type RetryNotice,
} from './http';
export { SAFE_TO_RETRY_CODES } from './retry-policy';
export { DEFAULT_MAX_RETRIES, DEFAULT_MAX_RETRY_WAIT_MS } from './retrying-call';
export type { WatchOptions } from './watch';
export type { CreateRunOptions } from './create-run';
export type { WaitOptions as WaitForRunOptions } from './wait';
export {
  applyEvent,
  emptyView,
  type AttemptView,
  type ReplacedStep,
  type RunView,
  type StepView,
} from './run-view';
export { approvedVersion, changesText, editedText, replacedStatus, replacedText } from './replaced-text';
export {
  approvalChangesLines,
  changedStepText,
  decidedText,
  deciderText,
  revisionCauseText,
} from './approval-changes-text';
export { approvalDeadlineShort, approvalDeadlineText, utcMinute } from './approval-deadline-text';
export { inputDeadlineShort, inputDeadlineText } from './input-deadline-text';
export { estimateText } from './estimate-text';
export {
  namedText,
  nameSourceNote,
  nameSourceWords,
  quotedName,
  unnamedDecisionWords,
} from './name-source-text';
export {
  advanceRunClock,
  humanDuration,
  runTimeAt,
  runTimeOf,
  runTimeText,
  startRunClock,
  type RunClock,
  type RunClockMode,
  type RunTime,
} from './run-time';
export type * from './types';
export { TERMINAL_STATUSES } from './types';

/** What a person adds to a decision: why (`comment`), their name (`approver`), the link's `token`. */
export type DecisionOptions = {
  comment?: string | undefined;
  approver?: string | undefined;
  token?: string | undefined;
  /**
   * The plan version the decider looked at (`pending_approval.plan_version`): refused (`conflict`,
   * `details.reason: "plan_version_changed"`) when the run awaits another by the time it arrives.
   */
  planVersion?: number | undefined;
};

/** A service's refusal of `plan_version` as a key it does not know (one from before the key). */
function unknownPlanVersion(err: unknown): boolean {
  return (
    err instanceof EdgeplanApiError &&
    err.status === 400 &&
    err.code === 'invalid_request' &&
    /Unknown keys? [^()]*"plan_version"/.test(err.message)
  );
}

/** A service's refusal of `question_seq` as a key it does not know (one from before the key). */
function unknownQuestionSeq(err: unknown): boolean {
  return (
    err instanceof EdgeplanApiError &&
    err.status === 400 &&
    err.code === 'invalid_request' &&
    /Unknown keys? [^()]*"question_seq"/.test(err.message)
  );
}

/** The optional parts of a decision body, left out when empty. */
const said = (comment: string | undefined, approver: string | undefined, planVersion?: number) => ({
  ...(comment ? { comment } : {}),
  ...(approver ? { approver } : {}),
  ...(planVersion === undefined ? {} : { plan_version: planVersion }),
});

export type EdgeplanClient = {
  /**
   * `POST /v1/runs`: start a run (for `config.mode: "lazy"`, call `dryRun`). Safe to retry: it sends an
   * `Idempotency-Key` (`options.idempotencyKey`, or a new UUID) and sends the request again, with the
   * key, when no answer came (`unreachable`, `timeout`) — at most `options.retries` times (default 2)
   * — and, after its `Retry-After`, when the server said to (`503 deploy_in_progress`, a 429, 502,
   * 503 or 504), as the client's `retry` options allow.
   */
  createRun(body: CreateRunRequest, options?: CreateRunOptions): Promise<CreatedRun>;
  /** `POST /v1/runs` with `config.mode: "lazy"`: validate and estimate, run nothing. */
  dryRun(body: CreateRunRequest): Promise<DryRun>;
  /** `GET /v1/runs`: newest first; pass `next_cursor` as `cursor` for the next page. */
  listRuns(query?: ListRunsQuery): Promise<RunPage>;
  /** `GET /v1/runs/:id`. */
  getRun(runId: string): Promise<Run>;
  /**
   * The approval the run waits for (`pending_approval` of `GET /v1/runs/:id`), or null: the version,
   * the deadline, and for a revision what it changes since the last approved version and why
   * (`approvalChangesLines` says it in words).
   */
  pendingApproval(runId: string): Promise<PendingApproval | null>;
  /**
   * `GET /v1/runs/:id/wait`: the run once it ended (`until: "terminal"`, the default), waits for a
   * person (`"waiting"`: approval or input) or records an event after `after` (`"any_change"`) — the
   * server follows the run's events, nothing polls. Waits as long as `timeoutS` (default: until then),
   * asking again every 50 s; when the time is up, `timed_out: true` with the run as it is.
   */
  waitForRun(runId: string, options?: WaitForRunOptions): Promise<RunWait>;
  /** `GET /v1/runs/:id/status` (seed 001 `plan.status`). */
  getStatus(
    runId: string,
    query?: { include_details?: boolean | undefined; include_completed?: boolean | undefined },
  ): Promise<RunStatusView>;
  /** `GET /v1/runs/:id/events`: one page after `after` (default 0). */
  eventsPage(
    runId: string,
    options?: { after?: number | undefined; limit?: number | undefined },
  ): Promise<EventsPage>;
  /** Every event after `after`, all pages. */
  events(runId: string, options?: { after?: number | undefined }): Promise<RunEvent[]>;
  /** The run's events live, ending after `RunTerminated`; resumes from the last seq after a disconnect. */
  watch(runId: string, options?: WatchOptions): AsyncGenerator<RunEvent, void, undefined>;
  /** `GET /v1/runs/:id/values?ref=`: one value by reference (`steps.a.output`, `final_output`, …). */
  getValue(runId: string, ref: string): Promise<RunValue>;
  /** `GET /v1/runs/:id/state?at=`: the run replayed from its events up to `at`. */
  getState(runId: string, at?: number): Promise<Run>;
  cancel(runId: string, reason?: string): Promise<ControlResult>;
  /**
   * `DELETE /v1/runs/:id`: an ended run and everything stored for it, its child runs too. A run still
   * going is refused (`conflict`, `details.reason: "run_active"`): cancel it first. `force`: a run this
   * release cannot read (`run_unreadable`) is deleted without reading it; a readable run as without it.
   * `503 deletion_pending` is sent again after its `Retry-After` (the client's `retry` options); when
   * the run finished its deletion by itself meanwhile (the retry is a 404), the answer is the deleted
   * run with the child runs the first answer could not list: `child_runs: []`.
   */
  deleteRun(runId: string, options?: { force?: boolean | undefined }): Promise<DeletedRun>;
  /** Re-run a failed, aborted or cancelled run from its failed step(s), or from `stepId`. */
  retry(runId: string, stepId?: string): Promise<ControlResult>;
  /** `POST /v1/runs/:id/approval` with any decision; `token` is the approval link's. */
  decide(
    runId: string,
    decision: ApprovalDecision,
    options?: { token?: string | undefined },
  ): Promise<ControlResult>;
  /** `approver`: the decider's name, recorded with the decision as given (a label, not authentication). */
  approve(runId: string, options?: DecisionOptions): Promise<ControlResult>;
  reject(runId: string, options?: DecisionOptions): Promise<ControlResult>;
  /** Approve a changed plan: a whole `plan`, or `edits`. */
  modify(
    runId: string,
    change: Pick<ApprovalDecision, 'plan' | 'edits' | 'comment' | 'approver' | 'plan_version'>,
    options?: { token?: string | undefined },
  ): Promise<ControlResult>;
  /**
   * `POST /v1/runs/:id/input`: the answer a run waits for, or new information. With `stepId`, the
   * answer to that step's question only: refused (409, `input_not_awaited`) once someone answered it.
   * With `questionSeq` too (the seq of the InputRequested event that asked it; a run view's
   * `waiting.question_seq`), the answer to that question only: refused (409 `question_closed`, saying
   * what became of it) once the run asks another — a late answer to a failed step's question does not
   * answer the one its step asks after a retry. Sent only beside `stepId`, and sent again without it
   * when a service from before it refuses the key. `approver`: who answers, recorded on InputReceived
   * as `answered_by` (as on a decision: a label, except behind Cloudflare Access, where the signed-in
   * identity is recorded).
   */
  sendInput(
    runId: string,
    input: unknown,
    options?: {
      stepId?: string | undefined;
      approver?: string | undefined;
      questionSeq?: number | undefined;
    },
  ): Promise<ControlResult>;
  replan(runId: string, reason: string): Promise<ControlResult>;
  rollback(runId: string, version: number): Promise<ControlResult>;
  listPlanVersions(runId: string): Promise<PlanVersionList>;
  getPlanVersion(runId: string, version: number): Promise<PlanVersion>;
  diffPlanVersions(runId: string, from: number, to: number): Promise<PlanDiff>;
  /** `GET /v1/runs/:id/planning`: the planning trace of a goal run (attempts, models, tokens, repairs). */
  getPlanningTrace(runId: string): Promise<PlanningTrace>;
  /** `GET /v1/tools` (`refresh`: list the MCP servers again). */
  listTools(options?: { refresh?: boolean | undefined }): Promise<Tool[]>;
  /** `GET /v1/tools` whole: the tools, and those of MCP servers that cannot be called, with why. */
  getTools(options?: {
    refresh?: boolean | undefined;
  }): Promise<{ tools: Tool[]; unavailable: UnavailableTool[] }>;
  /** `POST /v1/plans/validate`: every finding, estimates, the normalised plan. */
  validatePlan(body: ValidateRequest): Promise<ValidationResult>;
  /** `POST /v1/plans`: plan a goal without running it. */
  planGoal(body: PlanGoalRequest): Promise<PlanGoalResult>;
  /** `GET /v1/me`: who the API takes the caller to be — the Cloudflare Access identity, if any. */
  me(): Promise<Me>;
};

/** A client of one edgeplan API. */
export function createClient(options: ClientOptions): EdgeplanClient {
  const call = withRetries(makeCall(options), options);
  const run = (runId: string, rest = '') => `/v1/runs/${encodeURIComponent(runId)}${rest}`;
  const get = async <T>(path: string, query?: Record<string, string | number | boolean | undefined>) =>
    (await call<T>('GET', path, { query })).body;
  const post = async <T>(path: string, body: unknown, query?: Record<string, string | undefined>) =>
    (await call<T>('POST', path, { body, query })).body;

  const client: EdgeplanClient = {
    createRun: async (body, createOptions) => {
      if (body.config?.mode === 'lazy')
        throw new EdgeplanApiError(
          0,
          'invalid_request',
          'config.mode "lazy" runs nothing: call dryRun() to validate and estimate',
        );
      return createRunWithRetries(call, body, createOptions);
    },
    dryRun: async (body) => {
      const config = { ...(body.config ?? {}), mode: 'lazy' as const };
      // Idempotent: a dry run creates nothing.
      const answer = await call<DryRun>('POST', '/v1/runs', { body: { ...body, config }, idempotent: true });
      if (answer.status !== 200)
        throw new EdgeplanApiError(answer.status, 'invalid_response', 'A dry run started a run');
      return answer.body;
    },
    listRuns: (query = {}) => get<RunPage>('/v1/runs', query),
    getRun: (runId) => get<Run>(run(runId)),
    pendingApproval: async (runId) => (await get<Run>(run(runId))).pending_approval,
    waitForRun: (runId, waitOptions = {}) => waitRun(call, runId, waitOptions, options.timeoutMs),
    getStatus: (runId, query = {}) => get<RunStatusView>(run(runId, '/status'), query),
    eventsPage: (runId, { after = 0, limit } = {}) =>
      get<EventsPage>(run(runId, '/events'), { after, limit }),
    events: async (runId, { after = 0 } = {}) => {
      const all: RunEvent[] = [];
      let cursor = after;
      for (;;) {
        const page = await client.eventsPage(runId, { after: cursor, limit: 1000 });
        all.push(...page.events);
        if (!page.has_more || page.events.length === 0) return all;
        cursor = page.next_after;
      }
    },
    watch: (runId, watchOptions) => watchRun(call, options, runId, watchOptions),
    getValue: (runId, ref) => get<RunValue>(run(runId, '/values'), { ref }),
    getState: (runId, at) => get<Run>(run(runId, '/state'), { at }),
    cancel: (runId, reason) =>
      post<ControlResult>(run(runId, '/cancel'), reason === undefined ? {} : { reason }),
    deleteRun: async (runId, { force } = {}) => {
      try {
        return (await call<DeletedRun>('DELETE', run(runId), force ? { query: { force: true } } : {})).body;
      } catch (err) {
        // Sent again after `deletion_pending`, and the run's object had finished meanwhile: deleted.
        const finished =
          err instanceof EdgeplanApiError &&
          err.status === 404 &&
          err.retriedAfter?.code === 'deletion_pending';
        if (finished) return { run_id: runId, child_runs: [] };
        throw err;
      }
    },
    retry: (runId, stepId) =>
      post<ControlResult>(run(runId, '/retry'), stepId === undefined ? {} : { step_id: stepId }),
    decide: async (runId, decision, { token } = {}) => {
      try {
        return await post<ControlResult>(run(runId, '/approval'), decision, { token });
      } catch (err) {
        // A service from before `plan_version` (a deploy rolling out, a service older than this
        // client) refuses it as an unknown key, before anything is decided or a link is spent: the
        // decision goes again without it, taken unchecked as that service takes every decision.
        if (decision.plan_version == null || !unknownPlanVersion(err)) throw err;
        const { plan_version: _dropped, ...without } = decision;
        return post<ControlResult>(run(runId, '/approval'), without, { token });
      }
    },
    approve: (runId, { comment, approver, token, planVersion } = {}) =>
      client.decide(runId, { decision: 'approve', ...said(comment, approver, planVersion) }, { token }),
    reject: (runId, { comment, approver, token, planVersion } = {}) =>
      client.decide(runId, { decision: 'reject', ...said(comment, approver, planVersion) }, { token }),
    modify: (runId, change, { token } = {}) =>
      client.decide(runId, { decision: 'modify', ...change }, { token }),
    sendInput: async (runId, input, { stepId, approver, questionSeq } = {}) => {
      const body = {
        input,
        ...(stepId === undefined ? {} : { step_id: stepId }),
        ...(approver ? { approver } : {}),
      };
      // Beside step_id only: a service from before question_seq refuses it there (400, nothing taken,
      // so it is sent again without it), but would take a body with it and no step_id whole.
      if (questionSeq === undefined || stepId === undefined)
        return post<ControlResult>(run(runId, '/input'), body);
      try {
        return await post<ControlResult>(run(runId, '/input'), { ...body, question_seq: questionSeq });
      } catch (err) {
        if (!unknownQuestionSeq(err)) throw err;
        return post<ControlResult>(run(runId, '/input'), body);
      }
    },
    replan: (runId, reason) => post<ControlResult>(run(runId, '/replan'), { reason }),
    rollback: (runId, version) => post<ControlResult>(run(runId, '/rollback'), { version }),
    listPlanVersions: (runId) => get<PlanVersionList>(run(runId, '/plans')),
    getPlanVersion: (runId, version) => get<PlanVersion>(run(runId, `/plans/${version}`)),
    diffPlanVersions: (runId, from, to) => get<PlanDiff>(run(runId, `/plans/${from}/diff/${to}`)),
    getPlanningTrace: (runId) => get<PlanningTrace>(run(runId, '/planning')),
    listTools: async (options = {}) => (await client.getTools(options)).tools,
    getTools: ({ refresh } = {}) =>
      get<{ tools: Tool[]; unavailable: UnavailableTool[] }>('/v1/tools', refresh ? { refresh: true } : {}),
    // Idempotent: validation stores nothing.
    validatePlan: async (body) =>
      (await call<ValidationResult>('POST', '/v1/plans/validate', { body, idempotent: true })).body,
    // Planning takes longer than a request's minute, unless the client set its own limit.
    planGoal: async (body) =>
      (
        await call<PlanGoalResult>('POST', '/v1/plans', {
          body,
          defaultTimeoutMs: DEFAULT_PLANNING_TIMEOUT_MS,
        })
      ).body,
    me: () => get<Me>('/v1/me'),
  };
  return client;
}

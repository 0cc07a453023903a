/**
 * The shapes `edgeplan/client` sends and receives, named from the generated OpenAPI types
 * (api-types.ts, generated from the document the API serves): a change to the API changes these.
 */
import type { components, operations } from './api-types';

/** Every schema of the API by its component name, e.g. `Schemas['PlanStep']`. */
export type Schemas = components['schemas'];

/** The JSON answer of an operation with `status`. */
type Answer<Op extends keyof operations, Status extends number> = operations[Op]['responses'] extends {
  [S in Status]: { content: { 'application/json': infer T } };
}
  ? T
  : never;
/** The JSON body of an operation's request. */
type Body<Op extends keyof operations> = operations[Op] extends {
  requestBody?: { content: { 'application/json': infer T } };
}
  ? T
  : never;
/** The query parameters of an operation. */
type Query<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['query']>;

export type Plan = Schemas['Plan'];
export type PlanStep = Schemas['PlanStep'];
export type ToolCall = Schemas['ToolCall'];
export type RunStatus = Schemas['RunStatus'];
export type StepStatus = Schemas['StepStatus'];
export type Finding = Schemas['Finding'];
export type Estimates = Schemas['Estimates'];
/** The approval a run waits for (`Run.pending_approval`): which version, until when, what changed. */
export type PendingApproval = Schemas['PendingApproval'];
/** What a version awaiting approval changes since the last approved one (also in the approval webhook). */
export type ApprovalChanges = Schemas['ApprovalChanges'];
/** Why a version since the approved one was written. */
export type RevisionCause = Schemas['RevisionCause'];
export type ErrorInfo = Schemas['ErrorInfo'];

/** The body of `POST /v1/runs`: a plan, a goal, or an imported source, with config and input. */
export type CreateRunRequest = Body<'createRun'>;
/** `201` from `POST /v1/runs`. */
export type CreatedRun = Answer<'createRun', 201>;
/** `200` from `POST /v1/runs` with `config.mode: "lazy"`: the validated plan, nothing run. */
export type DryRun = Answer<'createRun', 200>;
/** `GET /v1/runs/:id`. */
export type Run = Answer<'getRun', 200>;
export type RunStatusView = Answer<'getRunStatus', 200>;
export type RunPage = Answer<'listRuns', 200>;
/**
 * `GET /v1/runs`'s filters. `top_level` is a boolean here (the query string spells it `true`).
 * @example client.listRuns({ parent_run_id: 'run_…' }) // the child runs of one run
 */
export type ListRunsQuery = Omit<Query<'listRuns'>, 'top_level'> & { top_level?: boolean };
export type RunSummary = RunPage['runs'][number];
export type EventsPage = Answer<'listRunEvents', 200>;
export type RunValue = Answer<'getRunValue', 200>;
/** The run's status after a control request (cancel, retry, approval, input, replan, rollback). */
export type ControlResult = Answer<'cancelRun', 200>;
/** `GET /v1/runs/:id/wait`: the run, and whether the time was up before it got where it was waited for. */
export type RunWait = Answer<'waitForRun', 200>;
/** What `waitForRun` waits for: the run's end, a person (approval or input), or any new event. */
export type WaitUntil = NonNullable<Query<'waitForRun'>['until']>;
/** `DELETE /v1/runs/:id`: the run and the child runs deleted with it. */
export type DeletedRun = Answer<'deleteRun', 200>;
export type ApprovalDecision = Body<'decideApproval'>;
export type PlanVersionList = Answer<'listPlanVersions', 200>;
export type PlanVersion = Answer<'getPlanVersion', 200>;
export type PlanDiff = Answer<'diffPlanVersions', 200>;
/** `GET /v1/me`: who the API takes the caller to be (an Access identity, an API token, or no one). */
export type Me = Answer<'getMe', 200>;
/** `GET /v1/runs/:id/planning`: every LLM attempt that planned or revised the run. */
export type PlanningTrace = Answer<'getPlanningTrace', 200>;
export type ValidateRequest = Body<'validatePlan'>;
export type ValidationResult = Answer<'validatePlan', 200>;
export type PlanGoalRequest = Body<'planGoal'>;
export type PlanGoalResult = Answer<'planGoal', 201>;
export type Tool = Schemas['Tool'];
/** A tool an MCP server lists that cannot be called, or a server that could not be listed or is misconfigured (no `name`), and why. */
export type UnavailableTool = Schemas['UnavailableTool'];

/** A run event: a discriminated union on `event_type`. */
export type RunEvent = Schemas['RunEvent'];
export type EventType = RunEvent['event_type'];
/** The event of one type, e.g. `EventOf<'ToolReturned'>['payload'].latency_ms`. */
export type EventOf<T extends EventType> = Extract<RunEvent, { event_type: T }>;

/** Every error the API answers: `{error: {code, message, details?}}`. */
export type ApiErrorBody = Schemas['Error'];

/** Run statuses after which nothing more happens unless the caller retries. */
export const TERMINAL_STATUSES = [
  'completed',
  'failed',
  'aborted',
  'cancelled',
] as const satisfies readonly RunStatus[];

/**
 * Where a run gets its plans — in the Durable Object and in process alike: a first plan for a goal
 * (the machine's `plan` command) and new versions when it asks for a revision (`revise`). Answers are
 * data — a validated plan or an error — because they become the machine's `planned` / `revise` /
 * `*_failed` inputs (engine/side-work.ts turns one into the other).
 */
import type { ErrorInfo } from '../errors';
import type { RevisionTrigger, TokenCount } from './events';
import type { PlanningOptions } from '../plan/config';
import type { Estimates } from '../plan/estimates';
import type { Plan, StepStatus, Strategy } from '../plan/model';
import type { PlannerFailure, PlannerLimits, PlanYield } from '../planner/contracts';

/** What a first plan is made from. */
export type DraftRequest = {
  goal: string;
  /** The run's input (`{{ input.<path> }}`). */
  input?: unknown;
  limits: PlannerLimits;
  /** Default `flat`; `hierarchical` lets steps carry sub-plans. */
  strategy?: Strategy;
  /** The tools the plan may use — names or namespaces (`demo.`, `demo.*`); all when absent. */
  tools?: readonly string[];
  /** Aborted when the run no longer wants the answer (its deadline passed, the run ended). */
  signal?: AbortSignal;
  /** How long one model call may take: the run's `planning_timeout_s`, in milliseconds. */
  timeout_ms?: number;
  /**
   * Told each model call's tokens as the call is answered, before the answer is whole: a planning cut
   * short (the run ended, its deadline passed) still counts the calls it made.
   */
  on_spent?: (tokens: TokenCount) => void;
  /** The run's planning options (model, temperature, prompt template, n-best, …). */
  planning?: PlanningOptions;
  /**
   * The id the plan must have. A streamed plan's steps run under it before the plan is whole, so the
   * plan that closes the stream — and its provenance — must carry the same one.
   */
  plan_id?: string;
};

/** What a new version of a running plan is made from. */
export type ReviseRequest = DraftRequest & {
  plan: Plan;
  step_statuses: Record<string, StepStatus>;
  /** Outputs of completed steps, by id. */
  step_results: Record<string, unknown>;
  /** State variables written by `output_path`. */
  state: Record<string, unknown>;
  /** The step whose failure asked for the revision, when one did. */
  failure?: PlannerFailure;
  reason: string;
  trigger: RevisionTrigger;
  /** The run's `revision_strategy` (`replan_remaining`, `insert_recovery`, …). */
  revision_strategy: string;
};

/** A validated plan (a revision: the same id, the next version), or why there is none. */
export type PlanAttempt =
  | { ok: true; plan: Plan; estimates: Estimates | null; tokens?: TokenCount }
  | { ok: false; error: ErrorInfo; details?: unknown; tokens?: TokenCount };

/**
 * A source of plans for {@link LocalRunner}. `pipelineProvider` wraps the LLM pipeline,
 * `plannerProvider` any seed-003 `Planner`.
 * @example
 * const provider: PlanProvider = plannerProvider(new RuleBasedPlanner({ rules, clock, ids }), { tools });
 * const first = await provider.draft({ goal: 'echo hi', limits: { max_steps: 20, max_depth: 2 } });
 */
export interface PlanProvider {
  draft(request: DraftRequest): Promise<PlanAttempt>;
  revise(request: ReviseRequest): Promise<PlanAttempt>;
  /**
   * Streaming execution (SPEC §4): steps as they arrive, each validated with those before it, then
   * `{finish}` with the whole plan. Optional: a provider without it is asked for a whole plan.
   */
  stream?(request: DraftRequest): AsyncIterable<PlanYield>;
  /**
   * False when `revise` cannot succeed (the pipeline with no LLM: its rules plan goals, not
   * revisions); the engine then asks for no automatic revisions. Absent means true.
   */
  readonly canRevise?: boolean;
}

/**
 * True for a {@link PlanProvider} (a `Planner` has `plan` instead).
 * @example const provider = isPlanProvider(p) ? p : plannerProvider(p, { tools, clock, ids });
 */
export function isPlanProvider(v: unknown): v is PlanProvider {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as Partial<PlanProvider>).draft === 'function' &&
    typeof (v as Partial<PlanProvider>).revise === 'function'
  );
}

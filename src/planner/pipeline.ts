/**
 * The planning pipeline (SPEC §3, seed 003): render the prompt → call the model (structured output
 * where the server supports it) → parse → validate → on failure a bounded repair prompt quoting the
 * problems → the next model (fallbacks ordered by recorded reliability) → the rule-based planner →
 * `planning_failed` with the whole trace. With no LLM configured: the rule planner, else
 * `planning_unavailable` naming the variables to set.
 *
 * Entry points: {@link planGoal} for a goal (`POST /v1/plans`, `POST /v1/runs {goal}`) and
 * {@link planFromState} for any {@link PlannerState} — a re-plan passes the current plan, the step
 * statuses and results, and the failure.
 */
import { ToolRegistry } from '../executor/registry';
import { LLM_NOT_CONFIGURED_MESSAGE, readLlmConfig } from '../executor/tools/openai-client';
import { RunConfigSchema } from '../plan/config';
import { builtinRules } from './builtin-rules';
import { validateCandidate } from './candidate';
import type { CandidateContext } from './candidate';
import type { PlannerState } from './contracts';
import { runLlmPlanning } from './llm-loop';
import { failure, success, sumTokens } from './outcome';
import { attemptContext, candidateContext } from './planning-setup';
import { RuleBasedPlanner } from './rule-planner';
import { resolveTemplate } from './template-store';
import type { TemplateChoice } from './template-store';
import { renderPrompt } from './templates';
import type { PlanningOutcome, PlannerDeps, PlanRequest, TraceEntry } from './types';
import { clipText } from '../text-cut';

const DEFAULTS = RunConfigSchema.parse({});

/** The variables `planning_unavailable` names. */
export const LLM_VARIABLES = [
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'PLANNER_MODEL',
  'PLANNER_FALLBACK_MODELS',
];

/** Per-call choices that are not part of the planner state. */
export type PlanOptions = {
  model?: string | undefined;
  temperature?: number | undefined;
  template?: TemplateChoice;
  n_best?: number | undefined;
  /** false: ask for plain text from the start (no response_format), for servers without JSON modes. */
  structured_output?: boolean | undefined;
  /** The id a first plan gets (a streamed run's, whose steps ran under it); default a new one. */
  plan_id?: string | undefined;
  /**
   * The planning request this one goes on with: a plan stream that yielded no step is asked again
   * whole, and those attempts follow the stream's (same planning id, next seq), so the planning trace
   * of the plan they produce lists the stream's attempt too. `trace`: the stream's entries, which
   * start this request's trace — its tokens count toward the budget, its attempt in the failure.
   */
  continues?:
    | {
        planning_id: string;
        after_seq: number;
        trace: readonly TraceEntry[];
        /**
         * Models the stream found unusable (timed out, unreachable, key refused, not an API): not
         * asked again, so a hung primary model leaves the planning deadline to the fallbacks.
         */
        skip_models?: readonly string[];
      }
    | undefined;
};

/**
 * Plans a goal. Never throws for a planning problem: the outcome says what happened.
 * @example
 * const out = await planGoal({ goal: 'Fetch https://example.com then echo done' }, { env, tools, clock, ids });
 * if (out.ok) startRun(out.plan); else console.log(out.error.code, out.error.message);
 */
export async function planGoal(request: PlanRequest, deps: PlannerDeps): Promise<PlanningOutcome> {
  const registry = restrictTools(deps.tools, request.tools);
  if (!registry.ok) return failure(deps.ids.id('planning'), 'invalid_request', registry.message, []);
  const state: PlannerState = {
    goal: request.goal,
    input: request.input,
    tools: registry.value.describe(),
    strategy: request.strategy ?? 'flat',
    limits: {
      max_steps: request.max_steps ?? request.max_subtasks ?? DEFAULTS.max_steps,
      max_depth: request.max_depth ?? DEFAULTS.max_depth,
      token_budget: request.token_budget ?? null,
    },
  };
  if (request.success_criteria !== undefined) state.success_criteria = request.success_criteria;
  return planFromState(
    state,
    {
      model: request.model,
      temperature: request.temperature,
      n_best: request.n_best,
      template: { text: request.prompt_template ?? request.planning_prompt, id: request.prompt_template_id },
    },
    deps,
  );
}

/**
 * Plans from a planner state: a fresh plan, or — when `state.plan` is set — its next version, with
 * the completed steps kept exactly as they ran (same id, new version, `metadata.replan_count` + 1).
 * Plans are validated against `deps.tools` restricted to the tools named in `state.tools`.
 * A re-plan does not fall back to the rule planner: its rules plan goals from scratch.
 */
export async function planFromState(
  state: PlannerState,
  options: PlanOptions,
  deps: PlannerDeps,
): Promise<PlanningOutcome> {
  const planningId = options.continues?.planning_id ?? deps.ids.id('planning');
  const candidate = candidateContext(state, deps, state.plan ? undefined : options.plan_id);
  const trace: TraceEntry[] = [...(options.continues?.trace ?? [])];
  const llm = readLlmConfig(deps.env);

  if (llm) {
    const template = await resolveTemplate(deps.templates, options.template ?? {});
    if (!template.ok) return failure(planningId, 'invalid_request', template.message, trace);
    const prompt = renderPrompt(template.template, state);
    const result = await runLlmPlanning({
      planningId,
      prompt,
      primary: options.model ?? llm.model,
      fallbacks: parseModelList(deps.env.PLANNER_FALLBACK_MODELS),
      skip: options.continues?.skip_models ?? [],
      maxRepairs: deps.maxRepairs ?? 1,
      nBest: Math.max(1, Math.floor(options.n_best ?? 1)),
      firstMode: options.structured_output === false ? 'text' : 'json_schema',
      verifier: deps.verifier,
      trace,
      attempt: attemptContext({
        planningId,
        llm,
        prompt,
        temperature: options.temperature,
        candidate,
        deps,
        afterSeq: options.continues?.after_seq,
      }),
    });
    if (result) {
      return success(result.plan, result.validation.estimates, state, trace, {
        planningId,
        planner: 'llm',
        model: result.model,
        template: prompt.template,
      });
    }
  }

  if (!state.plan) {
    const ruled = planWithRules(state, candidate, deps, trace);
    if (ruled) {
      return success(ruled.plan, ruled.estimates, state, trace, {
        planningId,
        planner: 'rules',
        model: null,
        template: null,
      });
    }
  }

  if (!llm) {
    return failure(
      planningId,
      'planning_unavailable',
      `Cannot plan "${truncate(state.goal)}": no rule-based plan matches it and ${lowerFirst(LLM_NOT_CONFIGURED_MESSAGE)} ` +
        'PLANNER_FALLBACK_MODELS (comma-separated) adds models to fall back to.',
      trace,
      LLM_VARIABLES,
    );
  }
  const attempts = trace.filter((t) => t.planner === 'llm');
  const models = [...new Set(attempts.map((t) => t.model))].join(', ');
  const spent = sumTokens(trace).total;
  const budget = state.limits.token_budget;
  const last =
    budget != null && spent >= budget
      ? `planning spent ${spent} tokens, the token budget is ${budget}`
      : (attempts.at(-1)?.message ?? 'no attempt was made');
  return failure(
    planningId,
    'planning_failed',
    `Planning failed: ${attempts.length} LLM attempt${attempts.length === 1 ? '' : 's'} (models: ${models}) produced no valid plan` +
      `${state.plan ? '' : ' and no rule matched the goal'}. Last problem: ${last.replace(/\.$/, '')}. Every attempt is in details.planning_trace.`,
    trace,
  );
}

/** The rule planner's turn: a matching rule's plan, validated like any other. */
function planWithRules(state: PlannerState, ctx: CandidateContext, deps: PlannerDeps, trace: TraceEntry[]) {
  const planner = new RuleBasedPlanner({
    rules: deps.rules ?? builtinRules,
    clock: deps.clock,
    ids: deps.ids,
  });
  const found = planner.planFor(state);
  if (!found) {
    trace.push({ planner: 'rules', outcome: 'no_match', message: 'No rule matches the goal' });
    return null;
  }
  const validation = validateCandidate({ steps: found.plan.steps }, ctx);
  if (!validation.valid || !validation.plan) {
    trace.push({ planner: 'rules', outcome: 'invalid', rule: found.rule.id, findings: validation.errors });
    return null;
  }
  trace.push({ planner: 'rules', outcome: 'ok', rule: found.rule.id });
  validation.plan.metadata = { ...found.plan.metadata };
  return { plan: validation.plan, estimates: validation.estimates };
}

/** The registry limited to `names`; every name must be a registered tool. */
function restrictTools(
  tools: ToolRegistry,
  names: readonly string[] | undefined,
): { ok: true; value: ToolRegistry } | { ok: false; message: string } {
  if (names === undefined) return { ok: true, value: tools };
  const unknown = names.filter((n) => !tools.has(n));
  if (unknown.length > 0) {
    return {
      ok: false,
      message: `Unknown tool${unknown.length === 1 ? '' : 's'} in "tools": ${unknown.join(', ')} (registered: ${tools.names().join(', ')})`,
    };
  }
  return { ok: true, value: new ToolRegistry(names.map((n) => tools.get(n)!)) };
}

/** `"a, b ,,c"` → `['a', 'b', 'c']`. */
export function parseModelList(value: unknown): string[] {
  if (typeof value !== 'string') return [];
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function truncate(text: string, max = 120): string {
  return clipText(text, max);
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/**
 * Beginning an attempt, the same way in every runtime (the Durable Object and the in-process
 * runner): is it still current, what are its concrete parameters, which time limit applies. Returns
 * the inputs to feed the machine next — `invoked`, or a failure: `invalid_parameters` when the plan
 * gives a key the tool's closed input does not take, `missing_input` when a referenced
 * value was never written, `parameters_too_large` when the resolved parameters are over the limit
 * (value-limits.ts) — and, when there is something to run, what to run. A step with a sub-plan runs
 * it as a child run (engine/child-run.ts), the same call in every host. Pure.
 */
import type { ErrorInfo } from '../errors';
import type { ToolRegistry } from '../executor/registry';
import { isRecord, TERMINAL_RUN_STATUSES, type PlanStep } from '../plan/model';
import { renderValue } from '../plan/jinja';
import { getOwn, setOwn } from '../plan/own-keys';
import { unknownKeysSummary } from '../plan/parameter-problems';
import { collectReferences, resolveValue } from '../plan/references';
import { teaMetaOf, type TeaMeta } from '../plan/tea-meta';
import { ENV_NAMES_PARAM } from '../plan/tea-settings';
import { subplanCall } from './child-run';
import { scopeFor } from './decide';
import { actionFor, stepDef, stepTimeoutMs } from './step-definition';
import { stepEffectKey } from './idempotency';
import type { MachineInput } from './machine-types';
import type { ResultStore, RunState } from './state';
import { teaContext } from './tea-context';
import { jsonText, parametersLimitError } from './value-limits';

export type BegunAttempt = {
  step: PlanStep;
  action: string;
  parameters: Record<string, unknown>;
  idempotency_key: string;
  /** What is left of the attempt's time: its deadline, from now. */
  timeout_ms: number;
  /**
   * The attempt's time limit as configured — the step's `timeout_ms`, else the tool's own (a child run,
   * a person's answer), else the run's `step_timeout` — which a timeout's message names.
   */
  limit_ms: number;
  fallback: boolean;
  /** Length of the parameters' JSON text: what carrying them elsewhere costs. */
  parameters_length: number;
};

/**
 * Begins attempt `attempt` of step `stepId` at `now`, or says why not.
 * @example
 * const r = beginAttempt(state, results, tools, 'fetch', 1, Date.now());
 * pending.push(...r.inputs); // then run r.begun.action with r.begun.parameters, if begun
 */
export function beginAttempt(
  state: RunState,
  results: ResultStore,
  tools: ToolRegistry,
  stepId: string,
  attempt: number,
  now: number,
): { inputs: MachineInput[]; begun: BegunAttempt | null; reason?: string } {
  const rt = state.steps.get(stepId);
  if (!rt || rt.status !== 'running' || rt.attempt !== attempt || state.needs_decision.has(stepId)) {
    return { inputs: [], begun: null, reason: 'attempt is no longer current' };
  }
  // An ended run starts nothing: a queue message delivered after a cancel (or again, its lease gone
  // with the run's end) must not call the tool. Its attempt's deadline settles it.
  if (TERMINAL_RUN_STATUSES.has(state.status)) {
    return { inputs: [], begun: null, reason: `the run has ended (${state.status})` };
  }
  const step = stepDef(state, stepId);
  // Hierarchical plans: a step with a sub-plan is done when its sub-plan, run as a child run, is.
  const child = step.subplan && !rt.on_fallback ? subplanCall(step, state) : null;
  const chosen: {
    action: string;
    parameters: Record<string, unknown>;
    timeout_ms?: number;
    tool_version?: string;
  } = child ?? actionFor(step, rt.on_fallback);
  const { action, parameters } = chosen;
  // A sub-plan's references name its own steps: the child run resolves them, not this one.
  const meta = teaMetaOf(state.plan);
  const node = meta && !child && !rt.on_fallback ? meta : null;
  const tool = tools.get(action);
  // Keys as the plan writes them (validation refuses the same ones): a plan that reached the run
  // some other way — a version stored before the check, a rollback — never has one silently dropped.
  const unknown =
    tool && !child
      ? unknownKeysSummary(tool, node ? (node.params[step.id] ?? step.parameters) : parameters)
      : null;
  if (unknown !== null) {
    const message = `Invalid parameters for ${action}: ${unknown}`;
    return failed(stepId, attempt, { code: 'invalid_parameters', message, retryable: false });
  }
  if (node) {
    const rendered = renderTea(state, results, node, step);
    if (!rendered.ok) return failed(stepId, attempt, rendered.error);
    chosen.parameters = rendered.value;
  }
  const resolved =
    child || meta
      ? { ok: true as const, value: chosen.parameters }
      : resolveValue(parameters, scopeFor(state, results, collectReferences(parameters).refs));
  if (!resolved.ok) {
    const message = `${resolved.missing.text} was never written`;
    return failed(stepId, attempt, { code: 'missing_input', message, retryable: false });
  }
  const params = withEnvNames(resolved.value as Record<string, unknown>, node);
  const parametersText = jsonText(params);
  const tooLarge = parametersLimitError(stepId, parametersText);
  if (tooLarge) return failed(stepId, attempt, tooLarge);
  const idempotency_key = stepEffectKey(state.run_id, stepId, rt);
  // A tool with its own time limit (a child run, a person's answer) gets it unless the step sets one.
  const own = chosen.timeout_ms ?? tool?.timeout_ms;
  const tool_version = chosen.tool_version ?? tool?.version;
  const ownLimit = own !== undefined && step.timeout_ms === undefined ? own : undefined;
  const deadline_at = ownLimit !== undefined ? now + ownLimit : undefined;
  const invoked: MachineInput = {
    type: 'invoked',
    step_id: stepId,
    attempt,
    tool: action,
    parameters: params,
    idempotency_key,
    ...(tool_version !== undefined ? { tool_version } : {}),
    ...(ownLimit !== undefined ? { deadline_at: now + ownLimit, limit_ms: ownLimit } : {}),
  };
  const timeout_ms = Math.max(1, (deadline_at ?? rt.deadline_at ?? now) - now);
  const limit_ms = ownLimit ?? stepTimeoutMs(state, step);
  return {
    inputs: [invoked],
    begun: {
      step,
      action,
      parameters: params,
      idempotency_key,
      timeout_ms,
      limit_ms,
      fallback: rt.on_fallback,
      parameters_length: parametersText.length,
    },
  };
}

/**
 * A TEA node's `with:` rendered as TEA renders it, against the state now; the parameters named in
 * `raw` (a `subtask_executor`, rendered per subtask) pass as written. An error names the node, the
 * parameter and its line in the workflow.
 */
function renderTea(
  state: RunState,
  results: ResultStore,
  meta: TeaMeta,
  step: PlanStep,
): { ok: true; value: Record<string, unknown> } | { ok: false; error: ErrorInfo } {
  const template = meta.params[step.id] ?? step.parameters;
  const raw = meta.raw[step.id] ?? [];
  const toRender = structuredClone(template);
  const kept: [string[], unknown][] = [];
  for (const path of raw) {
    const keys = path.split('.');
    // Own keys only: a path the plan's metadata gives (`__proto__.x`) must not reach Object.prototype.
    const parent = keys
      .slice(0, -1)
      .reduce<unknown>((o, k) => (isRecord(o) ? getOwn(o, k) : undefined), toRender);
    const last = keys.at(-1)!;
    if (isRecord(parent) && Object.hasOwn(parent, last)) {
      kept.push([keys, parent[last]]);
      delete parent[last];
    }
  }
  const r = renderValue(toRender, teaContext(state, results, meta, step));
  if (!r.ok) {
    const base = meta.lines[step.id]?.[r.path];
    const where = base === undefined ? `line ${r.line} of the template` : `line ${base + r.line - 1}`;
    return {
      ok: false,
      error: {
        code: 'template_error',
        message: `Node "${step.id}": the template in with.${r.path} (${where}) failed: ${r.message}`,
        retryable: false,
      },
    };
  }
  const value = r.value as Record<string, unknown>;
  // TEA fills llm.call's missing model/temperature/max_tokens from settings.llm.
  const llm = meta.settings.llm;
  if (step.action === 'llm.call' && isRecord(llm)) {
    for (const key of ['model', 'temperature', 'max_tokens']) {
      if (!Object.hasOwn(value, key) && llm[key] !== undefined) value[key] = llm[key];
    }
  }
  for (const [keys, v] of kept) {
    const parent = keys
      .slice(0, -1)
      .reduce<unknown>((o, k) => (isRecord(o) ? getOwn(o, k) : undefined), value);
    if (isRecord(parent)) setOwn(parent, keys.at(-1)!, v);
  }
  return { ok: true, value };
}

/**
 * The parameters a tool is called with, carrying the Worker variables a TEA workflow's `settings` read
 * (`meta.env_names`) in {@link ENV_NAMES_PARAM} — and only those: a `$env` the plan itself wrote (in a
 * step's parameters, a fallback's, a node's `with:`) is dropped, or any plan could name a secret there
 * and read it back (src/plan/tea-settings.ts expands what `$env` lists).
 */
function withEnvNames(params: Record<string, unknown>, meta: TeaMeta | null): Record<string, unknown> {
  const { [ENV_NAMES_PARAM]: _written, ...rest } = params;
  return meta && meta.env_names.length > 0 ? { ...rest, [ENV_NAMES_PARAM]: meta.env_names } : rest;
}

/** An attempt that fails before its tool is called: its result, and nothing to run. */
function failed(
  stepId: string,
  attempt: number,
  error: ErrorInfo,
): { inputs: MachineInput[]; begun: null; reason: string } {
  return {
    inputs: [{ type: 'result', step_id: stepId, attempt, outcome: { success: false, error, latency_ms: 0 } }],
    begun: null,
    reason: error.message,
  };
}

/**
 * Child runs: a step that runs a goal or a plan as a run of its own, in its own Durable Object
 * (`agent.dispatch`, `plan.execute`). The child's id is derived from the parent's attempt, so a
 * repeated attempt finds the same child instead of starting a second one; when the child ends it
 * reports its rolled-up result to the parent step, which was left running.
 */
import { parseRunConfig, validationLimits } from '../plan/config';
import type { Plan } from '../plan/model';
import { validatePlan } from '../plan/validate';
import { ToolError } from '../errors';
import type { ToolRegistry } from '../executor/registry';
import type { StepOutcome } from '../engine/machine';
import { snapshotRun, type RunSnapshot } from '../engine/snapshot';
import type { RunState } from '../engine/state';
import type { SqlStore } from './sql-store';
import { reportable } from './call-limits';
import type { StepMessage } from './messages';
import { sendSteps } from './fan-out';
import type { RpcResult } from './plan-run';

export type ParentRef = { run_id: string; step_id: string; attempt: number };

export type ChildRequest = { goal?: string; plan?: unknown; config?: unknown; input?: unknown };

/** Starts (or finds) the child run of a parent attempt; throws a ToolError the step can report. */
export async function startChildRun(
  env: Env,
  tools: ToolRegistry,
  parent: ParentRef,
  req: ChildRequest,
): Promise<string> {
  const runId = await childRunId(parent);
  const config = parseRunConfig(req.config ?? {});
  let plan: Plan | undefined;
  if (req.plan !== undefined) {
    const v = validatePlan(req.plan, {
      tools,
      config: validationLimits(config, false),
      clock: { now: () => new Date() },
      ids: { id: (p) => `${p}_${runId.slice(4)}`, uuid: () => crypto.randomUUID() },
    });
    if (!v.valid || !v.plan) {
      const first = v.errors[0];
      throw new ToolError(
        'invalid_plan',
        `The child plan has ${v.errors.length} finding(s)${first ? `: ${first.code}: ${first.message}` : ''}`,
        {
          retryable: false,
        },
      );
    }
    plan = v.plan;
  } else if (!req.goal) {
    throw new ToolError('invalid_parameters', 'Give the child run a "goal" or a "plan"', {
      retryable: false,
    });
  }
  const created = (await env.PLAN_RUN.getByName(runId).create({
    run_id: runId,
    goal: plan?.goal || req.goal || '',
    ...(plan ? { plan } : {}),
    config,
    input: req.input ?? {},
    estimates: null,
    parent,
  })) as RpcResult<{ outbox: StepMessage[] }>;
  if (created.ok) {
    await sendSteps(env.STEPS, created.value.outbox);
  } else if (!created.ok && created.error.code !== 'run_exists') {
    throw new ToolError(created.error.code, created.error.message, { retryable: true });
  }
  return runId;
}

/** What a parent step gets when its child run ends. */
export function childOutcome(snap: RunSnapshot, startedAt: string | null): StepOutcome {
  const latency_ms =
    startedAt && snap.completed_at ? Date.parse(snap.completed_at) - Date.parse(startedAt) : 0;
  const tokens = { prompt: snap.token_usage.prompt_tokens, completion: snap.token_usage.completion_tokens };
  if (snap.status !== 'completed') {
    const why = snap.error?.message ?? snap.status;
    return {
      success: false,
      error: {
        code: 'child_run_failed',
        message: `Child run ${snap.run_id} ended ${snap.status}: ${why}`,
        retryable: false,
      },
      latency_ms,
      tokens,
    };
  }
  return {
    success: true,
    output: {
      run_id: snap.run_id,
      status: snap.status,
      plan: snap.plan,
      subtask_results: snap.step_results,
      plan_status: snap.counts,
      replan_count: snap.revision_count,
      final_output: snap.final_output,
      token_usage: snap.token_usage,
      planning_trace: [],
      success: true,
    },
    latency_ms,
    tokens,
  };
}

async function childRunId(p: ParentRef): Promise<string> {
  const digest = await crypto.subtle.digest(
    'SHA-256',
    new TextEncoder().encode(`${p.run_id}:${p.step_id}:${p.attempt}`),
  );
  const hex = [...new Uint8Array(digest).slice(0, 16)].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `run_${hex}`;
}

/** A child run that ended tells its parent step (which was left running) how it went. */
export async function reportToParent(env: Env, store: SqlStore, state: RunState): Promise<void> {
  const raw = store.getMeta('parent');
  if (!raw) return;
  const parent = JSON.parse(raw) as ParentRef;
  // The child runs with its parent's config: an outcome the parent would refuse as too large is
  // refused here, so it never has to cross the call (which would fail, leaving the step to time out).
  const { outcome } = reportable(
    parent.step_id,
    childOutcome(snapshotRun(state, store), state.started_at ?? state.created_at),
    state.config.max_output_bytes,
  );
  try {
    await env.PLAN_RUN.getByName(parent.run_id).completeSteps([
      { step_id: parent.step_id, attempt: parent.attempt, outcome },
    ]);
  } catch (err) {
    console.error(`child run ${state.run_id}: could not report to ${parent.run_id}/${parent.step_id}`, err);
  }
}

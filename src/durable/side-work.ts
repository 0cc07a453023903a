/**
 * What a run's decisions ask for besides running steps: planning a goal, producing a revision, telling
 * an approver. Each ends by feeding the machine an input (`planned`, `revise`, `revision_failed`, …),
 * so the outcome is an event like everything else.
 */
import type { Command, MachineInput, Refusal } from '../engine/machine';
import { snapshotRun } from '../engine/snapshot';
import type { RunState } from '../engine/state';
import type { ToolRegistry } from '../executor/registry';
import { planFromState, planGoal } from '../planner/pipeline';
import type { PlanningOutcome } from '../planner/types';
import { plannerDepsFor } from '../planner/worker-deps';
import { requestApproval } from './approval';
import type { SqlStore } from './sql-store';

export type SideCommand = Exclude<Command, { type: 'dispatch' } | { type: 'abort' }>;

export type SideWorkHost = {
  state: RunState;
  env: Env;
  tools: ToolRegistry;
  store: SqlStore;
  apply(inputs: MachineInput[]): Promise<Refusal | undefined>;
};

export async function runSideWork(c: SideCommand, host: SideWorkHost): Promise<void> {
  switch (c.type) {
    case 'plan':
      await planRun(host);
      return;
    case 'revise':
      await reviseRun(host, c);
      return;
    case 'approval_requested':
      await requestApproval(host.state, host.store, host.env, c.deadline_at);
      return;
    case 'input_requested':
      return;
  }
}

function deps(host: SideWorkHost) {
  return plannerDepsFor(host.env, {
    tools: host.tools,
    clock: { now: () => new Date() },
    ids: { id: (p) => `${p}_${crypto.randomUUID().replaceAll('-', '')}`, uuid: () => crypto.randomUUID() },
  });
}

async function planRun(host: SideWorkHost): Promise<void> {
  const s = host.state;
  const outcome = await planGoal(
    {
      goal: s.goal,
      max_steps: s.config.max_steps,
      max_depth: s.config.max_depth,
      token_budget: s.config.token_budget ?? null,
      input: s.input,
    },
    deps(host),
  );
  await host.apply([
    outcome.ok
      ? {
          type: 'planned',
          plan: outcome.plan,
          estimates: outcome.validation.estimates,
          tokens: tokensOf(outcome),
        }
      : { type: 'planning_failed', error: errorOf(outcome) },
  ]);
}

/** A new version of the rest of the plan from the planner; completed steps stay as they ran. */
async function reviseRun(host: SideWorkHost, c: Extract<SideCommand, { type: 'revise' }>): Promise<void> {
  const s = host.state;
  const snap = snapshotRun(s, host.store);
  const failed = c.step_id !== undefined ? s.steps.get(c.step_id) : undefined;
  const outcome = await planFromState(
    {
      goal: s.goal,
      input: s.input,
      tools: host.tools.describe(),
      limits: {
        max_steps: s.config.max_steps,
        max_depth: s.config.max_depth,
        token_budget: s.config.token_budget ?? null,
      },
      strategy: s.plan?.strategy,
      plan: s.plan!,
      step_statuses: snap.step_statuses,
      step_results: snap.step_results,
      state: snap.state,
      ...(c.step_id !== undefined
        ? {
            failure: {
              step_id: c.step_id,
              code: failed?.error?.code,
              reason: failed?.error?.message ?? c.reason,
            },
          }
        : {}),
      reason:
        c.strategy === 'insert_recovery'
          ? `${c.reason}. Insert recovery steps; keep the rest of the plan.`
          : c.reason,
    },
    {},
    deps(host),
  );
  await host.apply([
    outcome.ok
      ? { type: 'revise', plan: outcome.plan, reason: c.reason, kind: 'revision', tokens: tokensOf(outcome) }
      : { type: 'revision_failed', error: errorOf(outcome) },
  ]);
}

function tokensOf(o: PlanningOutcome): { prompt: number; completion: number } {
  return { prompt: o.tokens.prompt, completion: o.tokens.completion };
}

function errorOf(o: Extract<PlanningOutcome, { ok: false }>) {
  return { code: o.error.code, message: o.error.message, retryable: o.error.retryable };
}

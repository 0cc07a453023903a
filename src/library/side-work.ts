/**
 * What a run's decisions ask for besides running steps, carried out in process: planning a goal,
 * producing a revision, asking for approval or for input. Each ends in the machine input it leads to
 * (`planned`, `revise`, `approval`, …), so its outcome is an event like everything else — the same
 * contract as the Durable Object's side work (src/durable/side-work.ts).
 */
import { EdgeplanError, toErrorInfo } from '../errors';
import type { Command, MachineInput } from '../engine/machine';
import { snapshotRun } from '../engine/snapshot';
import type { ResultStore, RunState } from '../engine/state';
import type { RunnerHooks } from './local-runner';
import type { PlanProvider, ReviseRequest } from './plan-provider';

export type SideCommand = Exclude<Command, { type: 'dispatch' } | { type: 'abort' }>;

export type SideWorkContext = {
  state: RunState;
  results: ResultStore;
  planner: PlanProvider | null;
  hooks: RunnerHooks;
  report: (err: unknown, where: string) => void;
};

/**
 * The input a side command leads to, or null when it waits on someone outside (no hook decides).
 * @example const input = await carryOut({ type: 'plan' }, ctx); if (input) runner.send(input);
 */
export async function carryOut(c: SideCommand, ctx: SideWorkContext): Promise<MachineInput | null> {
  const s = ctx.state;
  const limits = {
    max_steps: s.config.max_steps,
    max_depth: s.config.max_depth,
    token_budget: s.config.token_budget ?? null,
  };
  switch (c.type) {
    case 'plan': {
      if (!ctx.planner) return failureInput(c, new EdgeplanError('planning_unavailable', NO_PLANNER));
      const out = await ctx.planner.draft({
        goal: s.goal,
        input: s.input,
        limits,
        ...(s.config.strategy ? { strategy: s.config.strategy } : {}),
      });
      return out.ok
        ? {
            type: 'planned',
            plan: out.plan,
            estimates: out.estimates,
            ...(out.tokens ? { tokens: out.tokens } : {}),
          }
        : { type: 'planning_failed', error: out.error };
    }
    case 'revise': {
      if (!ctx.planner) return failureInput(c, new EdgeplanError('planning_unavailable', NO_PLANNER));
      const out = await ctx.planner.revise(reviseRequest(c, ctx, limits));
      return out.ok
        ? {
            type: 'revise',
            plan: out.plan,
            reason: c.reason,
            kind: c.trigger === 'next_turn' ? 'turn' : 'revision',
            ...(out.tokens ? { tokens: out.tokens } : {}),
          }
        : {
            type: 'revision_failed',
            error: { ...out.error, message: `Could not revise the plan (${c.reason}): ${out.error.message}` },
          };
    }
    case 'approval_requested': {
      const approve = ctx.hooks.approve;
      if (!approve || !s.plan) return null;
      try {
        const ok = (await approve(s.plan)) === true;
        return { type: 'approval', decision: ok ? 'approve' : 'reject' };
      } catch (err) {
        ctx.report(err, 'approve');
        const comment = `the approval hook threw: ${toErrorInfo(err).message}`;
        return { type: 'approval', decision: 'reject', comment };
      }
    }
    case 'input_requested': {
      const ask = ctx.hooks.inputRequested;
      if (!ask) return null;
      const request =
        c.step_id === undefined ? { reason: c.reason } : { reason: c.reason, step_id: c.step_id };
      const answer: unknown = await ask(request);
      return answer === undefined ? null : { type: 'input', input: answer };
    }
    case 'judge':
      // The library's runner does not configure an LLM judge, so the structural check applies.
      return null;
  }
}

/** What the planner is told about a revision: the plan, what its steps did, and why. */
function reviseRequest(
  c: Extract<SideCommand, { type: 'revise' }>,
  ctx: SideWorkContext,
  limits: ReviseRequest['limits'],
): ReviseRequest {
  const s = ctx.state;
  const snap = snapshotRun(s, ctx.results);
  const req: ReviseRequest = {
    goal: s.goal,
    input: s.input,
    limits,
    plan: s.plan!,
    step_statuses: snap.step_statuses,
    step_results: snap.step_results,
    state: snap.state,
    reason: c.reason,
    trigger: c.trigger,
    revision_strategy: c.strategy,
  };
  if (c.step_id !== undefined) {
    const error = s.steps.get(c.step_id)?.error;
    req.failure = {
      step_id: c.step_id,
      reason: error?.message ?? c.reason,
      ...(error ? { code: error.code } : {}),
    };
  }
  return req;
}

const NO_PLANNER =
  'This run has no planner: give the runner a `planner` (a Planner or a PlanProvider) to plan goals and revisions';

/** Side work that threw: planning and revisions fail as data; the rest keeps waiting. */
export function failureInput(c: SideCommand, err: unknown): MachineInput | null {
  const error = toErrorInfo(err);
  if (c.type === 'plan') return { type: 'planning_failed', error };
  if (c.type === 'revise') return { type: 'revision_failed', error };
  return null;
}

/**
 * `staged` runs (seed 002 multi-stage policies): when a stage's steps are done, its output (the
 * output of the last of its steps) is checked against its `output_schema` and the stage completes;
 * its transitions choose the next stage — an earlier one rewinds, at most `max_stage_rewinds` times —
 * whose `input_schema` the output must fit; the planner is then asked for that stage's steps. A failed
 * check ends the run with a stage failure naming the stage and the failing paths. Pure.
 */
import { parseCondition, evaluateCondition } from '../plan/conditions';
import { STAGE_END, stagesOf, type StageConfig } from '../plan/config';
import type { RefScope, Reference } from '../plan/references';
import { checkStageSchema } from '../plan/stage-schema';
import { draft, type EventDraft } from './events';
import type { DecideContext } from './decide-context';
import type { RunState } from './state';

/** Rewinds a staged run may take when its config sets no `max_stage_rewinds`. */
export const DEFAULT_MAX_STAGE_REWINDS = 3;

type Scope = (refs: readonly Reference[]) => RefScope;

/** The stage's output: the output of the last of its steps that completed, in plan order. */
export function stageOutput(state: RunState, ctx: DecideContext): unknown {
  for (let i = state.stage_steps.length - 1; i >= 0; i--) {
    const id = state.stage_steps[i]!;
    if (state.steps.get(id)?.status === 'completed') return ctx.results.getOutput(id).value ?? null;
  }
  return undefined;
}

function stageFailed(stage: string, what: 'input' | 'output', problems: string[]): EventDraft {
  const message = `Stage "${stage}": its ${what} does not fit its ${what}_schema — ${problems.slice(0, 5).join('; ')}`;
  return draft('RunTerminated', {
    status: 'failed',
    reason: `stage_${what}_invalid`,
    error: { code: `stage_${what}_invalid`, message, retryable: false },
  });
}

/** The first transition whose condition holds (or the next stage in order). */
function nextStage(stages: StageConfig[], at: number, scope: Scope): { to: string | null; rule?: string } {
  for (const t of stages[at]!.transitions ?? []) {
    if (t.when === undefined) return { to: t.to };
    const parsed = parseCondition(t.when);
    if (parsed.ok && evaluateCondition(t.when, scope(parsed.refs))) return { to: t.to, rule: t.when };
  }
  return { to: stages[at + 1]?.name ?? null };
}

export function decideNextStage(state: RunState, ctx: DecideContext, scope: Scope): EventDraft | null {
  const stages = stagesOf(state.config);
  const current = stages[state.stage];
  if (state.unhandled_failures.size > 0 || !current) return null;
  if (state.stage_open && state.stage_planned) {
    const output = stageOutput(state, ctx);
    if (current.output_schema) {
      const problems = checkStageSchema(current.output_schema, output);
      if (problems.length) return stageFailed(current.name, 'output', problems);
    }
    return draft(
      'StageCompleted',
      output === undefined ? { stage: current.name } : { stage: current.name, output },
    );
  }
  if (state.stage_open) {
    return draft('RevisionRequested', {
      trigger: 'next_turn',
      reason:
        `stage ${current.name}: ${current.prompt ?? 'plan the steps of this stage'}` +
        (state.stage_rewinds > 0 ? ' (this stage again: add new steps with new ids for it)' : ''),
      strategy: 'replan_remaining',
    });
  }
  if (!ctx.canRevise) return null;
  const { to, rule } = nextStage(stages, state.stage, scope);
  if (to === null || to === STAGE_END) return null;
  const target = stages.findIndex((s) => s.name === to);
  const rewind = target <= state.stage;
  const budget = state.config.max_stage_rewinds ?? DEFAULT_MAX_STAGE_REWINDS;
  if (rewind && state.stage_rewinds >= budget) {
    return draft('RunTerminated', {
      status: 'failed',
      reason: 'stage_rewinds_exhausted',
      error: {
        code: 'stage_rewinds_exhausted',
        message: `Stage "${current.name}" would go back to "${to}" again after ${budget} rewind(s) (max_stage_rewinds)`,
        retryable: false,
      },
    });
  }
  const input = stageOutput(state, ctx);
  const schema = stages[target]!.input_schema;
  if (schema) {
    const problems = checkStageSchema(schema, input);
    if (problems.length) return stageFailed(to, 'input', problems);
  }
  return draft('StageStarted', {
    stage: to,
    from: current.name,
    ...(rule ? { rule } : {}),
    ...(rewind ? { rewind: true } : {}),
  });
}

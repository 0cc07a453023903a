/**
 * What a run's decisions ask for besides running steps: planning a goal, producing a revision, telling
 * an approver. Each ends by feeding the machine an input (`planned`, `revise`, `revision_failed`, …),
 * so the outcome is an event like everything else.
 */
import type { Command, MachineInput, Refusal } from '../engine/machine';
import type { RunState } from '../engine/state';
import type { ToolRegistry } from '../executor/registry';
import { toErrorInfo } from '../errors';
import type { Plan } from '../plan/model';
import { stagesOf, type StageConfig } from '../plan/config';
import { isStepYield } from '../planner/contracts';
import { planFromState, planGoal } from '../planner/pipeline';
import { revisionState } from '../planner/revision-state';
import { LlmStreamingPlanner } from '../planner/streaming-planner';
import { llmFetch } from '../planner/llm-transport';
import { createOpenAIClient, readLlmConfig } from '../executor/tools/openai-client';
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
    case 'judge':
      await host.apply([await judge(host, c)]);
      return;
  }
}

/**
 * The LLM judge (issue 5: "an LLM judge when one is configured"): does this output meet the step's
 * expected_output? A judge that cannot answer says nothing against the step.
 */
async function judge(host: SideWorkHost, c: Extract<SideCommand, { type: 'judge' }>): Promise<MachineInput> {
  const verdict = (ok: boolean, reason: string): MachineInput => ({
    type: 'judged',
    step_id: c.step_id,
    ok,
    reason,
  });
  try {
    const client = createOpenAIClient(host.env, llmFetch(), { timeoutMs: 30_000 });
    const res = await client.chat.completions.create({
      model: readLlmConfig(host.env)!.model,
      temperature: 0,
      messages: [
        {
          role: 'system',
          content:
            'You check whether a step of a plan produced what it should. Answer with one JSON object {"ok": boolean, "reason": string} and nothing else.',
        },
        {
          role: 'user',
          content: `Expected output: ${c.expected}\n\nActual output (JSON): ${JSON.stringify(host.store.getOutput(c.step_id).value ?? null).slice(0, 8000)}`,
        },
      ],
    });
    const text = res.choices[0]?.message.content ?? '';
    const parsed = JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1)) as {
      ok?: unknown;
      reason?: unknown;
    };
    return verdict(
      parsed.ok !== false,
      typeof parsed.reason === 'string' ? parsed.reason : 'no reason given',
    );
  } catch (err) {
    return verdict(true, `the judge could not answer (${toErrorInfo(err).message}); the output stands`);
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
  // Eager runs that need no approval stream: each step runs as soon as it has streamed in and validated.
  // Streaming suits flat plans; turn-based, staged and hierarchical plans are planned whole.
  const whole =
    s.config.strategy !== undefined && s.config.strategy !== 'flat' && s.config.strategy !== 'par';
  if (s.config.mode === 'eager' && !s.config.require_plan_approval && !whole) return streamPlan(host);
  const stage = currentStage(s);
  const outcome = await planGoal(
    {
      // A staged run plans its first stage: the stage's instructions, tools and token limit.
      goal: stage
        ? `${s.goal}\n\nStage ${stage.name}: ${stage.prompt ?? 'plan the steps of this stage'}`
        : s.goal,
      max_steps: s.config.max_steps,
      max_depth: s.config.max_depth,
      token_budget: stage?.max_tokens ?? s.config.token_budget ?? null,
      input: s.input,
      ...(s.config.strategy ? { strategy: s.config.strategy } : {}),
      ...(stage?.tools ? { tools: stageTools(host.tools, stage).map((t) => t.name) } : {}),
    },
    deps(host),
  );
  await host.apply([
    outcome.ok
      ? {
          type: 'planned',
          plan: { ...outcome.plan, goal: s.goal },
          estimates: outcome.validation.estimates,
          tokens: tokensOf(outcome),
        }
      : { type: 'planning_failed', error: errorOf(outcome) },
  ]);
}

/** Streaming execution (SPEC §4): streamed steps join the run as they arrive; the whole plan closes it. */
async function streamPlan(host: SideWorkHost): Promise<void> {
  const s = host.state;
  const planner = new LlmStreamingPlanner(deps(host));
  const planId = `plan_${crypto.randomUUID().replaceAll('-', '')}`;
  let whole: Plan | undefined;
  let tokens: { prompt: number; completion: number } | undefined;
  try {
    for await (const y of planner.plan({
      goal: s.goal,
      input: s.input,
      tools: host.tools.describe(),
      limits: {
        max_steps: s.config.max_steps,
        max_depth: s.config.max_depth,
        token_budget: s.config.token_budget ?? null,
      },
    })) {
      if (isStepYield(y)) await host.apply([{ type: 'streamed_step', step: y, plan_id: planId }]);
      else if ('finish' in y && y.finish.plan) {
        whole = y.finish.plan;
        tokens = tokensIn(y.finish.result);
      }
    }
  } catch (err) {
    const e = toErrorInfo(err);
    await host.apply([
      {
        type: 'planning_failed',
        error: { ...e, code: e.code === 'tool_error' ? 'planning_failed' : e.code, retryable: false },
      },
    ]);
    return;
  }
  await host.apply([
    whole
      ? { type: 'planned', plan: whole, estimates: null, ...(tokens ? { tokens } : {}) }
      : {
          type: 'planning_failed',
          error: { code: 'planning_failed', message: 'The planner streamed no plan', retryable: false },
        },
  ]);
}

/** A new version of the rest of the plan from the planner; completed steps stay as they ran. */
async function reviseRun(host: SideWorkHost, c: Extract<SideCommand, { type: 'revise' }>): Promise<void> {
  const s = host.state;
  const stage = c.trigger === 'next_turn' ? currentStage(s) : undefined;
  const tools = stage?.tools ? stageTools(host.tools, stage) : host.tools.describe();
  const asked = revisionState(s, host.store, tools, c);
  if (stage?.max_tokens) asked.limits = { ...asked.limits, token_budget: stage.max_tokens };
  const outcome = await planFromState(asked, {}, deps(host));
  await host.apply([
    outcome.ok
      ? {
          type: 'revise',
          plan: outcome.plan,
          reason: c.reason,
          kind: c.trigger === 'next_turn' ? 'turn' : 'revision',
          tokens: tokensOf(outcome),
        }
      : { type: 'revision_failed', error: errorOf(outcome) },
  ]);
}

/** The stage a `staged` run is in, if it is one. */
function currentStage(s: RunState): StageConfig | undefined {
  return s.config.strategy === 'staged' && s.stage >= 0 ? stagesOf(s.config)[s.stage] : undefined;
}

/** The tools a stage may use: names or namespace prefixes (`demo.` or `demo.*`). */
function stageTools(tools: ToolRegistry, stage: StageConfig) {
  const allowed = stage.tools ?? [];
  const fits = (name: string) =>
    allowed.some(
      (a) => a === name || name.startsWith(a.endsWith('*') ? a.slice(0, -1) : a.endsWith('.') ? a : `${a}.`),
    );
  return tools.describe().filter((t) => fits(t.name));
}

function tokensIn(result: unknown): { prompt: number; completion: number } | undefined {
  if (typeof result !== 'object' || result === null || !('tokens' in result)) return undefined;
  const t = result.tokens;
  if (typeof t !== 'object' || t === null) return undefined;
  const { prompt, completion } = t as { prompt?: unknown; completion?: unknown };
  return typeof prompt === 'number' && typeof completion === 'number' ? { prompt, completion } : undefined;
}

function tokensOf(o: PlanningOutcome): { prompt: number; completion: number } {
  return { prompt: o.tokens.prompt, completion: o.tokens.completion };
}

function errorOf(o: Extract<PlanningOutcome, { ok: false }>) {
  return { code: o.error.code, message: o.error.message, retryable: o.error.retryable };
}

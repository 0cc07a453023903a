/**
 * Child runs, the same in every host (SPEC §4): a step whose sub-plan runs (hierarchical plans) and a
 * step that calls `agent.dispatch` both run a plan as a run of their own — a child Durable Object in
 * the Worker, a nested LocalRunner in process. This module is what both hosts share about starting
 * one: the action and parameters a sub-plan step records, its time limit, and the child's run id.
 */
import type { PlanStep } from '../plan/model';
import type { RunState } from './state';

/** What a step that runs a child records as its tool, a sub-plan step included. */
export const CHILD_RUN_ACTION = 'agent.dispatch';

/** The version of {@link CHILD_RUN_ACTION} recorded in `ToolInvoked`. */
export const CHILD_RUN_TOOL_VERSION = '1';

/** How long a child run may take when its step sets no `timeout_ms` (not the parent's step_timeout). */
export const CHILD_RUN_TIMEOUT_MS = 3_600_000;

/** Levels of child runs below a run no step started (a sub-plan inside a sub-plan is two). */
export const MAX_CHILD_RUN_DEPTH = 10;

/** Child runs one run and all its descendants together may start, over the tree's whole life. */
export const MAX_TREE_CHILD_RUNS = 1000;

/** The most `MAX_CHILD_RUNS` may say: each child run is a run of its own (in the Worker, an object). */
export const MAX_CHILD_RUNS_SETTING = 100_000;

/**
 * `MAX_CHILD_RUNS` (a Worker variable, or the library runner's `env`) as the tree's limit: a whole
 * number from 1 to {@link MAX_CHILD_RUNS_SETTING}; null when it is unset or not one (the default holds).
 * @example maxChildRunsSetting('5000') // 5000
 */
export function maxChildRunsSetting(raw: unknown): number | null {
  const n = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : typeof raw === 'number' ? raw : NaN;
  return Number.isInteger(n) && n >= 1 && n <= MAX_CHILD_RUNS_SETTING ? n : null;
}

/** What a child run is started from: a goal to plan or a plan, its configuration and input. */
export type ChildRequest = { goal?: string; plan?: unknown; config?: unknown; input?: unknown };

/**
 * The parent attempt a child run belongs to (and reports to). In the Worker a child also records the
 * run its tree started from and its own depth below it (durable/child-run-limits.ts); rows written
 * before that have neither.
 */
export type ParentRef = {
  run_id: string;
  step_id: string;
  attempt: number;
  root_run_id?: string;
  depth?: number;
};

/** The call a sub-plan step records and runs. */
export type SubplanCall = {
  action: typeof CHILD_RUN_ACTION;
  parameters: ChildRequest & Record<string, unknown>;
  timeout_ms: number;
  tool_version: string;
};

/**
 * The call a step's sub-plan runs as: `agent.dispatch` with the sub-plan, the parent's configuration
 * (without approval — the parent's plan was approved with its sub-plans — or its planning mode) and
 * the parent's input. The sub-plan's references are its own steps', resolved in the child run.
 * @example subplanCall(step, state) // { action: 'agent.dispatch', parameters: { plan, config, input }, … }
 */
export function subplanCall(step: PlanStep, state: RunState): SubplanCall {
  const { require_plan_approval: _r, approval: _a, mode: _m, ...config } = state.config;
  return {
    action: CHILD_RUN_ACTION,
    parameters: { plan: step.subplan, config, input: state.input },
    timeout_ms: CHILD_RUN_TIMEOUT_MS,
    tool_version: CHILD_RUN_TOOL_VERSION,
  };
}

/**
 * The child run's id, derived from the parent's attempt: a repeated attempt finds the same child
 * instead of starting a second one. `run_` and 32 hex digits.
 * @example await childRunId({ run_id: 'run_1', step_id: 'research', attempt: 1 }) // 'run_3f…'
 */
export async function childRunId(p: ParentRef): Promise<string> {
  const digest = await crypto.subtle.digest(
    'SHA-256',
    new TextEncoder().encode(`${p.run_id}:${p.step_id}:${p.attempt}`),
  );
  const hex = [...new Uint8Array(digest).slice(0, 16)].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `run_${hex}`;
}

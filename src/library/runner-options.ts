/** What a `LocalRunner` is built with and started with, and what it asks of its owner. */
import { z } from 'zod';
import { ToolRegistry, type AnyTool } from '../executor/registry';
import type { RunConfig, RunConfigInput } from '../plan/config';
import type { Clock, IdSource, Plan, PlanStep } from '../plan/model';
import type { Planner } from '../planner/contracts';
import type { StepResult } from './execution-state';
import type { PlanProvider } from '../engine/plan-provider';
import type { Timers } from './wake-timer';
import { checkOptions, fn, optionsObject } from './parse-options';

export type { Timers } from './wake-timer';

/** What the runner asks of its owner. Hooks run one at a time, in the order of the events behind them. */
export type RunnerHooks = {
  /** Before a step's first attempt (not before retries); the attempt waits for it. */
  stepStarted?: (step: PlanStep) => unknown;
  /** After a step completed, or failed for good (retries and fallback spent). */
  stepSettled?: (step: PlanStep, result: StepResult) => unknown;
  /** The plan awaits approval: `true` approves, anything else rejects. Absent: call `approve()`. */
  approve?: (plan: Plan) => boolean | Promise<boolean>;
  /** The run waits for an answer (`ask_user`): return it, or `undefined` to answer later with `provideInput`. */
  inputRequested?: (request: { reason: string; step_id?: string }) => unknown;
  /** A hook or listener threw; the run carries on. Default: `console.error`. */
  error?: (err: unknown, where: string) => void;
};

export type LocalRunnerOptions = {
  tools: ToolRegistry | readonly AnyTool[];
  /** Plans goals and revisions. Without one, a goal run fails with `planning_unavailable`. */
  planner?: PlanProvider | Planner;
  hooks?: RunnerHooks;
  /** What tools see as `ctx.env` (plain Node: `{}`). */
  env?: Record<string, unknown>;
  /** What tools see as `ctx.fetch`. */
  fetch?: typeof fetch;
  clock?: Clock;
  /**
   * Where the runner sets its one timer (retry backoffs, attempt and approval deadlines); default
   * `setTimeout`. With a `clock` that moves when the timer fires, time can be virtual: a backoff then
   * costs no real waiting (sub-plans share both). A tool's own time limit stays real.
   */
  timers?: Timers;
  ids?: IdSource;
};

export type StartRequest = {
  runId?: string;
  /** Default: the plan's goal. A run without a plan is planned from its goal first. */
  goal?: string;
  /** A plan in any shape `validatePlan` accepts; validated against the tools before the run starts. */
  plan?: unknown;
  config?: RunConfigInput | RunConfig;
  /** The run's input (`{{ input.<path> }}`). */
  input?: unknown;
  /** Initial state variables (`{{ state.<key> }}`). */
  state?: Record<string, unknown>;
};

/** An object whose named members are functions: a clock, an id source, timers. */
const withMethods = (...names: string[]) =>
  z.custom<object>(
    (v) =>
      typeof v === 'object' &&
      v !== null &&
      names.every((n) => typeof (v as Record<string, unknown>)[n] === 'function'),
    { error: `must be an object with ${names.map((n) => `${n}()`).join(' and ')}` },
  );

const hooksSchema = optionsObject({
  stepStarted: fn.optional(),
  stepSettled: fn.optional(),
  approve: fn.optional(),
  inputRequested: fn.optional(),
  error: fn.optional(),
});

const runnerOptionsSchema = optionsObject({
  tools: z.union([z.instanceof(ToolRegistry), z.array(z.unknown())], {
    error: 'must be a ToolRegistry or an array of tools',
  }),
  // A seed-003 Planner (plan/decompose/…) or a PlanProvider (draft/revise): an object, told apart later.
  planner: z
    .custom<object>((v) => typeof v === 'object' && v !== null, { error: 'must be an object' })
    .optional(),
  hooks: hooksSchema.optional(),
  env: z.record(z.string(), z.unknown()).optional(),
  fetch: fn.optional(),
  clock: withMethods('now').optional(),
  timers: withMethods('set', 'clear').optional(),
  ids: withMethods('id', 'uuid').optional(),
});

/**
 * `opts` as given, or `invalid_options` naming each bad setting (`Invalid LocalRunner options: hooks:
 * Unknown key "stepStart" (did you mean "stepStarted"?)`). Functions are checked to be functions, not called.
 */
export function checkRunnerOptions(opts: LocalRunnerOptions): LocalRunnerOptions {
  return checkOptions('LocalRunner options', runnerOptionsSchema, opts);
}

/**
 * Tools and a scripted planner for the library tests: plain functions, no network, no sleeps beyond
 * a few milliseconds.
 */
import { z } from 'zod';
import { ToolError } from '../../src/errors';
import { deferToPerson } from '../../src/executor/deferred';
import { defineTool } from '../../src/executor/registry';
import type { PlanStep } from '../../src/plan/model';
import type { Planner, PlannerState } from '../../src/planner/contracts';
import type { Timers } from '../../src/library/wake-timer';
import { LocalRunner, pipelineProvider, randomIds, systemClock, ToolRegistry } from '../../src/index';

export const echo = defineTool({
  name: 't.echo',
  description: 'Returns its parameters',
  version: '1',
  input: z.record(z.string(), z.unknown()),
  idempotent: true,
  deterministic: true,
  run: (input) => Promise.resolve(input),
});

/** `t.ask`: waits for a person's answer (as `human.input` does), which becomes its output. */
export const ask = defineTool({
  name: 't.ask',
  description: 'asks a person',
  version: '1',
  input: z.object({ question: z.string() }),
  idempotent: true,
  deterministic: false,
  run: ({ question }) => Promise.resolve(deferToPerson(question)),
});

export const fail = defineTool({
  name: 't.fail',
  description: 'Always fails, not retryably',
  version: '1',
  input: z.object({ message: z.string().default('boom') }),
  idempotent: true,
  deterministic: true,
  run: ({ message }): Promise<never> => Promise.reject(new ToolError('boom', message, { retryable: false })),
});

/** Fails the first `times` calls per key (retryable or not), then returns `{key, call}`. */
export function flakyTool() {
  const calls = new Map<string, number>();
  const tool = defineTool({
    name: 't.flaky',
    description: 'Fails the first N calls per key',
    version: '1',
    input: z.object({ key: z.string(), times: z.number().int(), retryable: z.boolean().default(true) }),
    idempotent: true,
    deterministic: false,
    run: ({ key, times, retryable }) => {
      const n = (calls.get(key) ?? 0) + 1;
      calls.set(key, n);
      if (n <= times)
        return Promise.reject(new ToolError('flaky', `call ${n} of "${key}" fails`, { retryable }));
      return Promise.resolve({ key, call: n });
    },
  });
  return { tool, calls };
}

/**
 * A tool that runs until the test releases it: `entered` lists the calls that started, `max` is the
 * most that ran at once. Honours its abort signal.
 */
export function gateTool(name = 't.gate') {
  const waiting: Array<() => void> = [];
  const entered: string[] = [];
  let running = 0;
  const stats = { max: 0 };
  const arrivals: Array<() => void> = [];
  const tool = defineTool({
    name,
    description: 'Waits until released',
    version: '1',
    input: z.object({ id: z.string() }),
    idempotent: true,
    deterministic: true,
    run: async ({ id }, ctx) => {
      entered.push(id);
      running += 1;
      stats.max = Math.max(stats.max, running);
      for (const a of arrivals.splice(0)) a();
      try {
        await new Promise<void>((resolve, reject) => {
          waiting.push(resolve);
          ctx.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
        });
        return { id };
      } finally {
        running -= 1;
      }
    },
  });
  return {
    tool,
    entered,
    stats,
    get running() {
      return running;
    },
    /** Resolves once `n` calls have started. */
    async until(n: number): Promise<void> {
      while (entered.length < n) await new Promise<void>((r) => arrivals.push(r));
    },
    /** Lets every waiting call return. */
    releaseAll(): void {
      for (const w of waiting.splice(0)) w();
    },
  };
}

export function step(
  id: string,
  action: string,
  parameters: Record<string, unknown> = {},
  dependencies: string[] = [],
): PlanStep {
  return { id, description: `step ${id}`, action, parameters, dependencies };
}

/**
 * A seed-003 planner answering from a script: each call takes the next entry (the last repeats), a
 * list of steps or a function of the planner state. Records every state it was given.
 */
export function scriptedPlanner(...script: Array<PlanStep[] | ((state: PlannerState) => PlanStep[])>) {
  const calls: PlannerState[] = [];
  const planner: Planner = {
    plan: (state) => {
      const entry = script[Math.min(calls.length, script.length - 1)]!;
      calls.push(state);
      const steps = typeof entry === 'function' ? entry(state) : entry;
      return Promise.resolve({
        id: 'plan_scripted',
        version: 1,
        goal: state.goal,
        strategy: 'flat',
        steps,
        created_at: '2026-01-01T00:00:00.000Z',
      });
    },
  };
  return { planner, calls };
}

/** Lets pending promise callbacks and zero-delay timers run. */
export function settle(ms = 0): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Timers that fire only when the test says, and a clock that moves only then. */
export function manualTime() {
  let now = Date.parse('2026-01-01T00:00:00.000Z');
  type Armed = { fire: () => void; ms: number; at: number };
  const armed = new Set<Armed>();
  const timers: Timers = {
    set: (fire, ms) => {
      const t = { fire, ms, at: now + ms };
      armed.add(t);
      return t;
    },
    clear: (handle) => void armed.delete(handle as Armed),
  };
  return {
    clock: { now: () => new Date(now) },
    timers,
    /** The delays of the timers set and not yet fired or cleared. */
    armed: () => [...armed].map((t) => t.ms),
    /** Moves the clock to the earliest timer and fires it. */
    fireNext(): void {
      const next = [...armed].sort((a, b) => a.at - b.at)[0]!;
      armed.delete(next);
      now = next.at;
      next.fire();
    },
  };
}

/**
 * A runner over `t.echo` whose goals the LLM pipeline plans with a scripted model: `llmFetch` is
 * planner-helpers' `scriptedLlm(...).fetch`.
 */
export function scriptedModelRunner(llmFetch: typeof fetch): LocalRunner {
  const tools = new ToolRegistry([echo]);
  const llm = { baseURL: 'https://llm.test/v1', model: 'scripted-1', fetch: llmFetch };
  return new LocalRunner({
    tools,
    planner: pipelineProvider({ tools, llm, clock: systemClock, ids: randomIds }),
  });
}

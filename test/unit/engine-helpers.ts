import { RunMachine, type Command, type StepOutcome } from '../../src/engine/machine';
import type { RunEvent } from '../../src/engine/events';
import type { ErrorInfo } from '../../src/errors';
import { snapshotRun } from '../../src/engine/snapshot';
import { emptyRunState, MemoryResultStore } from '../../src/engine/state';
import { parseRunConfig, type RunConfigInput } from '../../src/plan/config';
import { normalizePlan, PlanInputSchema, type Plan } from '../../src/plan/model';

/** A machine on a hand-driven clock, recording every event and command. `null` creates it from a goal. */
export function harness(
  planInput: unknown,
  config: RunConfigInput = {},
  input: unknown = {},
  opts: { canRevise?: boolean; judge?: boolean } = {},
) {
  let t = Date.parse('2026-01-01T00:00:00Z');
  let n = 0;
  const clock = { now: () => new Date(t) };
  const ids = {
    id: (p: string) => `${p}_${++n}`,
    uuid: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
  };
  const plan: Plan | undefined =
    planInput === null ? undefined : normalizePlan(PlanInputSchema.parse(planInput), { clock, ids });
  const results = new MemoryResultStore();
  const machine = new RunMachine(emptyRunState('run_1', parseRunConfig(config)), {
    clock,
    ids,
    results,
    canRevise: opts.canRevise ?? false,
    judge: opts.judge ?? false,
  });
  const events: RunEvent[] = [];
  const commands: Command[] = [];
  const record = (r: { events: RunEvent[]; commands: Command[] }) => {
    events.push(...r.events);
    commands.push(...r.commands);
    return r;
  };
  record(
    machine.handle({
      type: 'create',
      run_id: 'run_1',
      goal: 'test',
      ...(plan ? { plan } : {}),
      config: parseRunConfig(config),
      input,
      estimates: null,
    }),
  );
  const h = {
    machine,
    results,
    events,
    commands,
    get state() {
      return machine.state;
    },
    advance(ms: number) {
      t += ms;
      return record(machine.handle({ type: 'tick' }));
    },
    now: () => t,
    /** The dispatches not yet answered, oldest first. */
    inFlight(): Command[] {
      return commands.filter(
        (c) =>
          c.type === 'dispatch' &&
          machine.state.steps.get(c.step_id)!.status === 'running' &&
          machine.state.steps.get(c.step_id)!.attempt === c.attempt,
      );
    },
    /** A consumer begins the step's current attempt (records ToolInvoked), as before calling its tool. */
    begin(stepId: string) {
      const attempt = machine.state.steps.get(stepId)!.attempt;
      return record(
        machine.handle({
          type: 'invoked',
          step_id: stepId,
          attempt,
          tool: 'demo.echo',
          parameters: {},
          idempotency_key: `run_1:${stepId}:${attempt}`,
        }),
      );
    },
    ok(stepId: string, output: unknown, attempt?: number) {
      const a = attempt ?? machine.state.steps.get(stepId)!.attempt;
      const outcome: StepOutcome = { success: true, output, latency_ms: 5 };
      return record(machine.handle({ type: 'result', step_id: stepId, attempt: a, outcome }));
    },
    fail(stepId: string, message = 'boom', retryable = true, attempt?: number) {
      return h.failWith(stepId, { code: 'tool_error', message, retryable }, attempt);
    },
    failWith(stepId: string, error: ErrorInfo, attempt?: number) {
      const a = attempt ?? machine.state.steps.get(stepId)!.attempt;
      const outcome: StepOutcome = { success: false, error, latency_ms: 5 };
      return record(machine.handle({ type: 'result', step_id: stepId, attempt: a, outcome }));
    },
    status: (id: string) => machine.state.steps.get(id)!.status,
    types: () => events.map((e) => e.event_type),
    snapshot: () => snapshotRun(machine.state, results),
  };
  return h;
}

export const echo = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  action: 'demo.echo',
  parameters: { v: id },
  ...extra,
});

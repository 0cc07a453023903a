/**
 * The run machine: inputs in, events and commands out. Each input becomes zero or more events
 * (validated against the state first, so duplicates and stale results are ignored), each event is
 * folded into the state with `evolve`, and `decideNext` is asked what follows until it has nothing
 * more to say. The owner (Durable Object or in-process runner) persists the events and carries the
 * commands out; it never changes the state itself.
 */
import type { ErrorInfo } from '../errors';
import type { RunConfig } from '../plan/config';
import type { Estimates } from '../plan/estimates';
import { TERMINAL_RUN_STATUSES, type Clock, type IdSource, type Plan, type PlanStep } from '../plan/model';
import { decideNext } from './decide';
import type { EventDraft, EventReferences, RunEvent, TokenCount } from './events';
import { evolve, isSettled } from './evolve';
import type { ResultStore, RunState } from './state';

export type StepOutcome =
  | { success: true; output: unknown; latency_ms: number; tokens?: TokenCount; cached?: boolean }
  | { success: false; error: ErrorInfo; latency_ms: number; tokens?: TokenCount };

export type MachineInput =
  | {
      type: 'create';
      run_id: string;
      goal: string;
      plan: Plan;
      config: RunConfig;
      input: unknown;
      estimates: Estimates | null;
      state?: Record<string, unknown>;
    }
  | {
      type: 'invoked';
      step_id: string;
      attempt: number;
      tool: string;
      parameters: Record<string, unknown>;
      idempotency_key: string;
      tool_version?: string;
    }
  | { type: 'result'; step_id: string; attempt: number; outcome: StepOutcome }
  | { type: 'tick' }
  | { type: 'cancel'; reason?: string }
  | { type: 'resume'; step_id?: string };

export type Command =
  | {
      type: 'dispatch';
      step_id: string;
      attempt: number;
      action: string;
      fallback: boolean;
      mode: 'queue' | 'inline';
    }
  | { type: 'abort'; step_ids: string[]; reason: string };

export type MachineDeps = {
  clock: Clock;
  ids: IdSource;
  results: ResultStore;
  dispatch?: (state: RunState, step: PlanStep) => 'queue' | 'inline';
};

/** Why an input was refused, as data the HTTP layer maps to a 4xx. */
export type Refusal = { code: string; message: string };

export type HandleResult = { events: RunEvent[]; commands: Command[]; refused?: Refusal };

export class RunMachine {
  constructor(
    readonly state: RunState,
    private readonly deps: MachineDeps,
  ) {}

  handle(input: MachineInput): HandleResult {
    const now = this.deps.clock.now().getTime();
    const out: HandleResult = { events: [], commands: [] };
    const emit = (d: EventDraft) => this.#append(d, out);
    const refused = this.#accept(input, emit);
    if (refused) return { ...out, refused };
    const ctx = { now, results: this.deps.results, dispatch: this.deps.dispatch ?? defaultDispatch };
    for (let d = decideNext(this.state, ctx); d; d = decideNext(this.state, ctx)) emit(d);
    return out;
  }

  /** The earliest time the run needs waking (a retry backoff or an attempt deadline), or null. */
  nextWakeAt(): number | null {
    let min: number | null = null;
    for (const at of this.state.timers.values()) if (min === null || at < min) min = at;
    return min;
  }

  /** Turns an input into its events, or says why it does not apply. */
  #accept(input: MachineInput, emit: (d: EventDraft) => void): Refusal | undefined {
    const s = this.state;
    switch (input.type) {
      case 'create': {
        if (s.seq > 0) return { code: 'run_exists', message: `Run ${s.run_id} already exists` };
        const { run_id, goal, config, plan, estimates } = input;
        emit({
          type: 'RunCreated',
          payload: { run_id, goal, config, input: input.input, state: input.state },
        });
        emit({ type: 'PlanAuthored', payload: { plan } });
        emit({ type: 'PlanValidated', payload: { valid: true, estimates } });
        emit({ type: 'RunStarted', payload: {} });
        return;
      }
      case 'invoked': {
        const rt = s.steps.get(input.step_id);
        if (!rt || rt.status !== 'running' || rt.attempt !== input.attempt || rt.invoked) return;
        const { step_id, attempt, tool, parameters, idempotency_key } = input;
        emit({
          type: 'ToolInvoked',
          payload: { step_id, attempt, tool, parameters, idempotency_key },
          references: { step_id, tool_version: input.tool_version },
        });
        return;
      }
      case 'result': {
        const rt = s.steps.get(input.step_id);
        // At most one result per attempt: a duplicate, late or stale report changes nothing.
        if (
          !rt ||
          rt.status !== 'running' ||
          rt.attempt !== input.attempt ||
          s.needs_decision.has(input.step_id)
        )
          return;
        const o = input.outcome;
        emit({
          type: 'ToolReturned',
          payload: o.success
            ? {
                step_id: input.step_id,
                attempt: input.attempt,
                success: true,
                output: o.output,
                latency_ms: o.latency_ms,
                tokens: o.tokens,
                cached: o.cached,
              }
            : {
                step_id: input.step_id,
                attempt: input.attempt,
                success: false,
                error: o.error,
                latency_ms: o.latency_ms,
                tokens: o.tokens,
              },
          references: { step_id: input.step_id },
        });
        return;
      }
      case 'tick':
        return;
      case 'cancel': {
        if (TERMINAL_RUN_STATUSES.has(s.status)) {
          return {
            code: 'run_finished',
            message: `Run ${s.run_id} is already ${s.status}; there is nothing to cancel`,
          };
        }
        emit({
          type: 'RunTerminated',
          payload: { status: 'cancelled', reason: input.reason ?? 'cancelled by request' },
        });
        return;
      }
      case 'resume': {
        if (s.status !== 'failed' && s.status !== 'aborted' && s.status !== 'cancelled') {
          return {
            code: 'run_not_retryable',
            message: `Run ${s.run_id} is ${s.status}; only failed, aborted or cancelled runs can be retried`,
          };
        }
        const ids = this.#resumable(input.step_id);
        if (typeof ids === 'object' && 'code' in ids) return ids;
        emit({ type: 'RunResumed', payload: { step_ids: ids } });
        return;
      }
    }
  }

  /** The steps a retry re-opens: failed and skipped steps (or one failed step and what it blocked). */
  #resumable(stepId?: string): string[] | Refusal {
    const s = this.state;
    if (stepId !== undefined) {
      const rt = s.steps.get(stepId);
      if (!rt) return { code: 'unknown_step', message: `Run ${s.run_id} has no step "${stepId}"` };
      if (rt.status !== 'failed' && rt.status !== 'skipped') {
        return {
          code: 'step_not_retryable',
          message: `Step "${stepId}" is ${rt.status}; only failed or skipped steps can be retried`,
        };
      }
    }
    const graph = s.graph!;
    const open = new Set<string>();
    const roots = stepId !== undefined ? [stepId] : graph.ids.filter((id) => isReopenable(s, id));
    const stack = [...roots];
    while (stack.length > 0) {
      const id = stack.pop()!;
      if (open.has(id)) continue;
      open.add(id);
      for (const dep of graph.dependents[graph.index.get(id)!] ?? []) {
        const rt = s.steps.get(dep)!;
        if (rt.status === 'skipped' || rt.status === 'failed' || !isSettled(rt)) stack.push(dep);
      }
    }
    // Never re-open completed work, and keep plan order so replay reads naturally.
    return graph.ids.filter((id) => open.has(id) && s.steps.get(id)!.status !== 'completed');
  }

  #append(d: EventDraft, out: HandleResult): void {
    const s = this.state;
    const references: EventReferences = {
      plan_id: s.plan?.id ?? null,
      plan_version: s.plan?.version ?? null,
      ...d.references,
    };
    if (d.type === 'PlanAuthored' || d.type === 'PlanUpdated') {
      references.plan_id = d.payload.plan.id;
      references.plan_version = d.payload.plan.version;
    }
    const event = {
      event_id: this.deps.ids.uuid(),
      seq: s.seq + 1,
      event_type: d.type,
      timestamp: this.deps.clock.now().toISOString(),
      actor: `run:${s.run_id}`,
      references,
      payload: d.payload,
    } as RunEvent;
    evolve(s, event, this.deps.results);
    out.events.push(event);
    const command = commandFor(event);
    if (command) out.commands.push(command);
  }
}

const REOPENED_SKIPS = new Set(['dependency_failed', 'failure_strategy', 'run_terminated']);

/** Failed steps, steps skipped because of a failure or a stop, and steps that never got to run. */
function isReopenable(s: RunState, id: string): boolean {
  const rt = s.steps.get(id)!;
  if (rt.status === 'failed') return !rt.handled;
  if (rt.status === 'skipped') return rt.skip_reason !== null && REOPENED_SKIPS.has(rt.skip_reason);
  return rt.status !== 'completed' && rt.status !== 'running';
}

function commandFor(event: RunEvent): Command | null {
  if (event.event_type === 'StepScheduled') {
    const p = event.payload;
    return {
      type: 'dispatch',
      step_id: p.step_id,
      attempt: p.attempt,
      action: p.action,
      fallback: p.fallback,
      mode: p.dispatch,
    };
  }
  if (event.event_type === 'RunTerminated' && event.payload.status === 'cancelled') {
    return { type: 'abort', step_ids: [], reason: event.payload.reason };
  }
  return null;
}

function defaultDispatch(state: RunState): 'queue' | 'inline' {
  return state.config.execution_mode === 'sequential' ? 'inline' : 'queue';
}

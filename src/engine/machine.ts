/**
 * The run machine: inputs in, events and commands out. Each input becomes zero or more events
 * (validated against the state first, so duplicates and stale results are ignored), each event is
 * folded into the state with `evolve`, and `decideNext` is asked what follows until it has nothing
 * more to say. The owner (Durable Object or in-process runner) persists the events and carries the
 * commands out; it never changes the state itself.
 */
import { stagesOf } from '../plan/config';
import type { Plan } from '../plan/model';
import { acceptAttemptInput } from './accept-attempt';
import { acceptControlInput } from './accept-control';
import { acceptPlanInput } from './accept-plan';
import { capacity, decideNext } from './decide';
import type { EventDraft, EventReferences, RunEvent } from './events';
import { evolve } from './evolve';
import { placeAttempt } from './placement';
import { commandFor } from './event-commands';
import type { HandleResult, MachineDeps, MachineInput, Refusal } from './machine-types';
import type { RunState } from './state';

export type * from './machine-types';

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
    if (input.type === 'create' && !input.plan) {
      // A staged run plans its first stage first.
      if (input.config.strategy === 'staged')
        emit({ type: 'StageStarted', payload: { stage: stagesOf(input.config)[0]!.name } });
      out.commands.push({ type: 'plan' });
    }
    // A retry of a run that has no plan: it is planned again, as when it was created.
    if (input.type === 'resume' && this.state.status === 'planning') out.commands.push({ type: 'plan' });
    const ctx = {
      now,
      results: this.deps.results,
      dispatch: this.deps.dispatch ?? ((state, _step, action) => placeAttempt(state, action)),
      canRevise: this.deps.canRevise ?? false,
    };
    for (let d = decideNext(this.state, ctx); d; d = decideNext(this.state, ctx)) emit(d);
    return out;
  }

  /** The earliest time the run needs waking (a retry backoff or an attempt deadline), or null. */
  nextWakeAt(): number | null {
    const s = this.state;
    const a = s.approval;
    let min: number | null =
      s.status === 'awaiting_approval' && a?.decision === 'pending' ? a.deadline_at : null;
    // A retry's time wakes the run only when the retry could start then. Otherwise what lets it start
    // (a slot freed, the answer or the revision in) is an input that decides anyway; waking for it
    // meanwhile found nothing to do, and the alarm, set again to that past time, fired at once, again
    // and again, until then.
    const retriesMayStart = s.status === 'running' && !s.revising && capacity(s) > 0;
    for (const [id, at] of s.timers) {
      if (!retriesMayStart && s.steps.get(id)?.status !== 'running') continue;
      if (min === null || at < min) min = at;
    }
    return min;
  }

  /** Turns an input into its events, or says why it does not apply. */
  #accept(input: MachineInput, emit: (d: EventDraft) => void): Refusal | undefined {
    switch (input.type) {
      case 'create':
      case 'streamed_step':
      case 'planned':
      case 'planning_failed':
      case 'approval':
      case 'revise':
      case 'revision_failed':
      case 'request_revision':
      case 'webhook_attempted':
        return acceptPlanInput(this.state, input, emit, this.deps);
      case 'judged':
      case 'await_input':
      case 'invoked':
      case 'result':
      case 'redispatch':
        return acceptAttemptInput(this.state, input, emit, this.deps);
      case 'input':
      case 'cancel':
      case 'fault':
      case 'resume':
        return acceptControlInput(this.state, input, emit, this.deps);
      case 'tick':
        return;
    }
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
      const prompt_version = promptVersionOf(d.payload.plan);
      if (prompt_version !== undefined) references.prompt_version = prompt_version;
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

/**
 * The version of the prompt template a planner wrote the plan from (its `metadata.prompt_template`,
 * stamped by the planning pipeline), for the plan event's `references.prompt_version` (SPEC §5's
 * envelope); undefined for a plan no prompt wrote (a caller's, a rule's).
 */
function promptVersionOf(plan: Plan): string | undefined {
  const template = plan.metadata?.prompt_template;
  if (typeof template !== 'object' || template === null) return undefined;
  const version = (template as { version?: unknown }).version;
  return typeof version === 'string' && version !== '' ? version : undefined;
}

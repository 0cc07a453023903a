/**
 * The command loop every host runs (the Durable Object, the in-process runner): feed the machine its
 * inputs and whatever they lead to — an attempt begun in the same breath as the decision that
 * scheduled it adds its `invoked` input — and sort the commands out for the host to carry out after it
 * has recorded the events. Hosts differ only in how they record and act; what happens is decided here.
 */
import type { RunEvent } from './events';
import type { Command, MachineInput, Refusal, RunMachine } from './machine';
import type { SideCommand } from './side-work';

export type DispatchCommand = Extract<Command, { type: 'dispatch' }>;

/** What a pass decided: the events to record, then the work to carry out. */
export type Decision = {
  events: RunEvent[];
  /** Planning, revisions, judges, approvals, input requests — in the order asked. */
  side: SideCommand[];
  /** Attempts in flight must stop (the run ended, or a revision replaced their steps). */
  abort: string | null;
  /** Why the first input did not apply, if it did not. */
  refused?: Refusal;
};

/**
 * Runs `inputs` and everything they lead to through the machine. `dispatch` is called for each step
 * the machine dispatches and may push inputs (its `invoked`, or a failure) onto `pending`.
 * @example
 * const d = decide(machine, [{ type: 'tick' }], (c, pending) => pending.push(...begin(c).inputs));
 * record(d.events); for (const c of d.side) startSideWork(c);
 */
export function decide(
  machine: RunMachine,
  inputs: readonly MachineInput[],
  dispatch: (c: DispatchCommand, pending: MachineInput[]) => void,
): Decision {
  const pending = [...inputs];
  const out: Decision = { events: [], side: [], abort: null };
  for (let first = true; pending.length > 0; first = false) {
    const r = machine.handle(pending.shift()!);
    if (r.refused) {
      if (first) out.refused = r.refused;
      continue;
    }
    out.events.push(...r.events);
    for (const c of r.commands) {
      if (c.type === 'dispatch') dispatch(c, pending);
      else if (c.type === 'abort') out.abort = c.reason;
      else out.side.push(c);
    }
  }
  return out;
}

/**
 * Queue attempts whose lease ran out, found at the object's alarm: those a consumer began and then
 * stopped renewing are sent to the queue again (same attempt, same idempotency key); those no consumer
 * ever took — the queue has no consumer — come back as inputs, to be carried out in the object instead,
 * and from then on the run's later queue steps are placed there too (untaken-attempts.ts says why).
 */
import type { MachineInput, RunMachine } from '../engine/machine';
import { TERMINAL_RUN_STATUSES } from '../plan/model';
import type { ToolRegistry } from '../executor/registry';
import { sendSteps } from './fan-out';
import { rerunnable } from './inline-attempts';
import type { Leases } from './leases';
import type { StepMessage } from './messages';
import type { SqlStore } from './sql-store';
import { notConsumed, QUEUE_BYPASSED, scheduledAt } from './untaken-attempts';
import { log } from '../log';

/** What the object lends: its queue, its rows, its leases and its tools. */
export type ExpiredLeasesHost = {
  /** Read at each use: a test may give the instance another env. */
  steps: () => Queue<StepMessage>;
  waitUntil: (p: Promise<unknown>) => void;
  store: SqlStore;
  leases: Leases;
  tools: () => ToolRegistry;
};

export class ExpiredLeases {
  /** Whether the steps queue left an attempt of this run untaken (read once; see {@link bypassed}). */
  #bypassed: boolean | undefined;

  constructor(private readonly host: ExpiredLeasesHost) {}

  /** Whether no consumer took one of this run's queued attempts: its later attempts run in the object. */
  bypassed(): boolean {
    this.#bypassed ??= this.host.store.getMeta(QUEUE_BYPASSED) !== null;
    return this.#bypassed;
  }

  /**
   * Sends the lost attempts again (without waiting for the queue), and returns the untaken ones as
   * `redispatch` inputs for the machine, logged once for the lot.
   */
  collect(m: RunMachine, now: number): MachineInput[] {
    // An ended run starts nothing again; its attempts still out report or time out on their own.
    if (TERMINAL_RUN_STATUSES.has(m.state.status)) return [];
    const { leases, store } = this.host;
    const running = new Map<string, number>();
    for (const id of m.state.running) {
      const rt = m.state.steps.get(id)!;
      // A deferred tool's attempt that began is not sent again (a second child run); one never begun is.
      if (rt.dispatch === 'queue' && (!rt.invoked || rerunnable(m.state, id, this.host.tools())))
        running.set(id, rt.attempt);
    }
    const expired = leases.expired(running, now);
    // Untaken: never begun by any consumer. (An attempt begun before a lease was kept for it — one
    // still out when its run was retried — has an unbegun row until its consumer renews it; one whose
    // consumer died meanwhile runs out so, and is sent again.)
    const taken = (l: { step_id: string; begun: boolean }) =>
      l.begun || m.state.steps.get(l.step_id)!.invoked;
    const lost = expired.filter(taken);
    const untaken = expired.filter((l) => !taken(l));
    if (lost.length > 0) {
      const version = m.state.plan?.version ?? 1;
      const run_id = m.state.run_id;
      this.host.waitUntil(
        sendSteps(
          this.host.steps(),
          lost.map(({ step_id, attempt }) => ({ run_id, step_id, attempt, plan_version: version })),
        ),
      );
    }
    if (untaken.length === 0) return [];
    leases.release(untaken.map((u) => u.step_id));
    if (!this.bypassed()) store.setMeta(QUEUE_BYPASSED, String(now));
    this.#bypassed = true;
    const inputs = untaken.map(({ step_id, attempt }) => {
      const waited_ms = now - scheduledAt(m.state, step_id);
      return {
        type: 'redispatch' as const,
        step_id,
        attempt,
        waited_ms,
        error: notConsumed(step_id, attempt, waited_ms),
      };
    });
    log(
      'queue_not_consumed',
      `run ${m.state.run_id}: queue_not_consumed: ${inputs[0]!.error.message}` +
        (inputs.length > 1
          ? ` (and ${inputs.length - 1} more attempt(s): ${untaken
              .slice(1)
              .map((u) => u.step_id)
              .join(', ')})`
          : ''),
      {
        run_id: m.state.run_id,
        step_id: untaken[0]!.step_id,
        attempt: untaken[0]!.attempt,
        code: 'queue_not_consumed',
        count: untaken.length,
      },
    );
    return inputs;
  }
}

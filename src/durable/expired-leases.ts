/**
 * Queue attempts whose lease ran out, found at the object's alarm: those a consumer began and then
 * stopped renewing are sent to the queue again (same attempt, same idempotency key); those no consumer
 * ever took come back as inputs, to be carried out in the object instead. When the object looked in time
 * the queue has no consumer, and the run's later queue steps are placed in the object too; when it
 * looked long after the attempt's window (a rollback held it), that says nothing about the queue
 * (untaken-attempts.ts says why).
 */
import type { MachineInput, RunMachine } from '../engine/machine';
import { TERMINAL_RUN_STATUSES } from '../plan/model';
import { sendSteps } from './fan-out';
import type { Leases } from './leases';
import type { StepMessage } from './messages';
import type { SqlStore } from './sql-store';
import { QUEUE_BYPASSED, untakenInputs } from './untaken-attempts';
import { unasked } from './unasked-questions';

/** What the object lends: its queue, its rows and its leases. */
export type ExpiredLeasesHost = {
  /** Read at each use: a test may give the instance another env. */
  steps: () => Queue<StepMessage>;
  waitUntil: (p: Promise<unknown>) => void;
  store: SqlStore;
  leases: Leases;
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
      // A deferred tool's attempt (a child run, a question) too: its lease is held past its hand-over
      // (leases.ts, handOver), so only one whose consumer died before handing over is sent again —
      // which finds the child it may have started (the child's id comes from the attempt), and asks
      // no question the run already waits on.
      if (rt.dispatch === 'queue') running.set(id, rt.attempt);
    }
    const expired = leases.expired(running, now);
    // Untaken: never begun by any consumer. (An attempt begun before a lease was kept for it — one
    // still out when its run was retried — has an unbegun row until its consumer renews it; one whose
    // consumer died meanwhile runs out so, and is sent again.)
    const taken = (l: { step_id: string; begun: boolean }) =>
      l.begun || m.state.steps.get(l.step_id)!.invoked;
    // One past its deadline is not sent again: the tick that follows times it out.
    const due = (l: { step_id: string }) => (m.state.steps.get(l.step_id)!.deadline_at ?? Infinity) > now;
    const lost = expired
      .filter((l) => taken(l) && due(l))
      .map(({ step_id, attempt }) => ({ step_id, attempt }));
    const untaken = expired.filter((l) => !taken(l));
    this.#send(m, lost);
    this.#askAgain(m, now, lost);
    if (untaken.length === 0) return [];
    leases.release(untaken.map((u) => u.step_id));
    // Later steps go to the object only when no consumer took an attempt looked at in time.
    const { inputs, unconsumed } = untakenInputs(m.state, untaken, now);
    if (unconsumed && !this.bypassed()) store.setMeta(QUEUE_BYPASSED, String(now));
    if (unconsumed) this.#bypassed = true;
    return inputs;
  }

  /**
   * Sends again the question attempts on the queue that the run did not ask, another question being
   * open then (unasked-questions.ts): called once an answer frees the run, and at each alarm.
   */
  askAgain(m: RunMachine, now: number): void {
    this.#askAgain(m, now, []);
  }

  #askAgain(m: RunMachine, now: number, sent: readonly { step_id: string }[]): void {
    const out: { step_id: string; attempt: number }[] = [];
    for (const id of m.state.running) {
      const rt = m.state.steps.get(id)!;
      if (rt.dispatch !== 'queue' || !rt.invoked || (rt.deadline_at ?? Infinity) <= now) continue;
      if (!unasked(m.state, id) || sent.some((l) => l.step_id === id)) continue;
      // Its lease was held for the wait (as a question's is): lapsed, so a consumer takes it now.
      this.host.leases.lapse(id, rt.attempt, now);
      out.push({ step_id: id, attempt: rt.attempt });
    }
    this.#send(m, out);
  }

  #send(m: RunMachine, attempts: { step_id: string; attempt: number }[]): void {
    if (attempts.length === 0) return;
    const plan_version = m.state.plan?.version ?? 1;
    const run_id = m.state.run_id;
    this.host.waitUntil(
      sendSteps(
        this.host.steps(),
        attempts.map(({ step_id, attempt }) => ({ run_id, step_id, attempt, plan_version })),
      ),
    );
  }
}

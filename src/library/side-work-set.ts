/**
 * The side work a {@link LocalRunner} has running — planning, a revision, a judge, the approval and
 * input hooks — each with its controller and what its model calls have spent so far. A planning,
 * revision or judge has a deadline (side-deadline.ts): past it the work is aborted and its failure
 * answered. When the run ends, everything still running is aborted, what it spent is handed back to
 * be charged to the run's end (as the Durable Object charges it), and it is no longer waited for: a
 * planner that ignores its signal cannot hold `done()`. Whatever aborted work answers later is dropped.
 */
import type { TokenCount } from '../engine/events';
import type { MachineInput } from '../engine/machine';
import { carryOut, failureInput, type SideCommand, type SideContext } from '../engine/side-work';
import { withCarried } from '../engine/spent-tokens';
import { pastDeadline, sideDeadlineMs } from './side-deadline';
import type { Timers } from './wake-timer';

/** What the set needs of its runner. */
export type SideWorkHost = {
  /** What a piece of work reads when it starts (the run's state, results, ports, ids, emit). */
  context(): Omit<SideContext, 'signal' | 'spent'>;
  timers: Timers;
  /** The work's answer to apply; null: nothing to apply, only whether the run has settled. */
  answer(input: MachineInput | null): void;
  report(err: unknown, where: string): void;
  crash(err: unknown): void;
};

export class SideWorkSet {
  readonly #host: SideWorkHost;
  /** Each piece running, by its controller: what its model calls have spent so far. */
  readonly #running = new Map<AbortController, TokenCount>();
  /** Planning and revisions running, by controller: what {@link stopPlanning} stops and waits for. */
  readonly #planning = new Map<AbortController, Promise<void>>();
  /** What stopped planning spent, charged to the run's end ({@link endRun}). */
  readonly #stopped: TokenCount = { prompt: 0, completion: 0 };
  /** A stop under way: a second cancel waits for it too, rather than end the run before it has counted. */
  #stopping: Promise<void> | null = null;

  constructor(host: SideWorkHost) {
    this.#host = host;
  }

  /** Carries `c` out; its answer goes to the host, unless it was aborted first. */
  start(c: SideCommand): void {
    const host = this.#host;
    const controller = new AbortController();
    const spent = { prompt: 0, completion: 0 };
    this.#running.set(controller, spent);
    const base = host.context();
    const ctx: SideContext = {
      ...base,
      // A stream's step read before an abort and yielded after it is dropped, as its answer is: a
      // cancel waiting for the planning it stopped must not see a step join the run meanwhile.
      emit: (input) => (controller.signal.aborted ? Promise.resolve() : base.emit(input)),
      signal: controller.signal,
      spent: (t: TokenCount) => {
        spent.prompt += t.prompt;
        spent.completion += t.completion;
      },
    };
    const stopDeadline = this.#deadline(c, ctx, controller, spent);
    const work = carryOut(c, ctx)
      .catch((err: unknown): MachineInput | null => {
        // Stopped because the run ended: nothing went wrong, and nothing is to be answered.
        if (controller.signal.aborted) return null;
        host.report(err, c.type);
        return failureInput(c, err);
      })
      .then((input) => {
        stopDeadline();
        this.#running.delete(controller);
        this.#planning.delete(controller);
        host.answer(input && !controller.signal.aborted ? input : null);
      })
      .catch((err: unknown) => host.crash(err));
    if (c.type === 'plan' || c.type === 'revise') this.#planning.set(controller, work);
  }

  /**
   * Stops the planning and revision running and waits, `ms` at most, until each has told what its
   * calls spent — a streamed answer cut now costs what streamed, known only once it is cut — so the
   * run that ends next counts it (as the Durable Object's cancel does: durable/side-work.ts). A call
   * while a stop is under way answers with it: the pieces it stopped are no longer "running", yet
   * what they spent is not counted until it ends.
   */
  stopPlanning(reason: string, ms: number): Promise<void> {
    if (this.#stopping) return this.#stopping;
    const stop = this.#stop(reason, ms).finally(() => (this.#stopping = null));
    this.#stopping = stop;
    return stop;
  }

  async #stop(reason: string, ms: number): Promise<void> {
    const stopping = [...this.#planning].filter(([ctl]) => !ctl.signal.aborted);
    if (stopping.length === 0) return;
    // Each piece's tally, kept: a piece that settles leaves the running set, its tally still growing.
    const tallies = stopping.map(([ctl]) => this.#running.get(ctl));
    for (const [ctl] of stopping) ctl.abort(new DOMException(reason, 'AbortError'));
    const { timers } = this.#host;
    let handle: unknown;
    const late = new Promise<void>((resolve) => (handle = timers.set(resolve, ms)));
    await Promise.race([Promise.allSettled(stopping.map(([, work]) => work)), late]);
    timers.clear(handle);
    for (const t of tallies) {
      if (!t) continue;
      this.#stopped.prompt += t.prompt;
      this.#stopped.completion += t.completion;
    }
  }

  /**
   * The run ended: every piece still running is aborted, and what their model calls spent is returned,
   * for the run's end to charge.
   */
  endRun(): TokenCount {
    const spent = { ...this.#stopped };
    this.#stopped.prompt = 0;
    this.#stopped.completion = 0;
    for (const [ctl, t] of this.#running) {
      if (ctl.signal.aborted) continue;
      spent.prompt += t.prompt;
      spent.completion += t.completion;
      ctl.abort(new DOMException('the run ended', 'AbortError'));
    }
    return spent;
  }

  /** Aborts every piece running (a cancel, a crash), with `reason`. */
  abortAll(reason: string): void {
    for (const ctl of this.#running.keys()) ctl.abort(new DOMException(reason, 'AbortError'));
  }

  /** Whether a planning or revision is running (not yet aborted), or being stopped. */
  get planning(): boolean {
    return this.#stopping !== null || [...this.#planning.keys()].some((c) => !c.signal.aborted);
  }

  /** Whether nothing is left to wait for: every piece still running was aborted. */
  get idle(): boolean {
    return [...this.#running.keys()].every((c) => c.signal.aborted);
  }

  /** Arms `c`'s deadline, if it has one; returns what disarms it. */
  #deadline(c: SideCommand, ctx: SideContext, controller: AbortController, spent: TokenCount): () => void {
    const limitMs = sideDeadlineMs(c, ctx.state.config);
    if (limitMs === null) return () => {};
    const { timers } = this.#host;
    const handle = timers.set(() => {
      if (controller.signal.aborted) return;
      controller.abort(new DOMException('past its deadline', 'TimeoutError'));
      this.#running.delete(controller);
      try {
        this.#host.answer(withCarried(pastDeadline(c, ctx.state.config), spent));
      } catch (err) {
        this.#host.crash(err);
      }
    }, limitMs);
    const stop = () => timers.clear(handle);
    controller.signal.addEventListener('abort', stop, { once: true });
    return stop;
  }
}

/**
 * The user's hooks (callbacks), run one after another in the order the run reached them: a hook starts
 * after every hook before it has finished, and its failure is reported, never thrown into the run.
 */
export class HookChain {
  #tail: Promise<void> = Promise.resolve();
  #pending = 0;

  constructor(
    private readonly report: (err: unknown, where: string) => void,
    /** Called after each hook ends (the run may be settled now). */
    private readonly ended: () => void,
  ) {}

  /** Hooks queued or running. */
  get pending(): number {
    return this.#pending;
  }

  run(where: string, fn: () => unknown): Promise<void> {
    this.#pending += 1;
    const next = this.#tail
      .then(fn)
      .then(
        () => undefined,
        (err: unknown) => this.report(err, where),
      )
      .finally(() => {
        this.#pending -= 1;
        this.ended();
      });
    this.#tail = next;
    return next;
  }
}

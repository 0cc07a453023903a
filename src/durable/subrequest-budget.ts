/**
 * The subrequests one queue-consumer invocation may still make. Cloudflare ends an invocation that
 * goes past its plan's limit (50 on Workers Free; KV and D1 count theirs within 1,000 on either plan:
 * platform-limits.ts), and `wrangler dev` never does — so the consumer, which takes continuations for
 * as long as 30 s, counts what it sends and stops taking more while the rest still fits.
 * @example
 * const budget = new SubrequestBudget(subrequestLimit(env));
 * budget.spend(); await stub.beginSteps(requests);
 */
import { PLATFORM_LIMITS } from '../platform-limits';

/**
 * Subrequests an invocation may make: `SUBREQUESTS_PER_INVOCATION` (Workers Free: 50), else 1,000 —
 * the per-invocation figure KV's and D1's limits state on either plan, below Workers Paid's own.
 */
export function subrequestLimit(env: { SUBREQUESTS_PER_INVOCATION?: string }): number {
  const given = Number(env.SUBREQUESTS_PER_INVOCATION?.trim() || NaN);
  if (Number.isInteger(given) && given >= 1) return given;
  return PLATFORM_LIMITS.kvOperationsPerInvocation.value;
}

export class SubrequestBudget {
  #spent = 0;

  constructor(readonly limit: number) {}

  get spent(): number {
    return this.#spent;
  }

  /** Counts `n` calls this invocation made (or is about to make). */
  spend(n = 1): void {
    this.#spent += n;
  }

  /** How many more units of `cost` calls fit once `reserved` calls are kept back. */
  room(cost: number, reserved: number): number {
    return Math.max(0, Math.floor((this.limit - this.#spent - reserved) / cost));
  }

  /** `inner`, counting each call: what a tool's `ctx.fetch` is in the consumer. */
  fetch(inner: typeof fetch = (input, init) => fetch(input, init)): typeof fetch {
    return (input, init) => {
      this.spend();
      return inner(input, init);
    };
  }
}

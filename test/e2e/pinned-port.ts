/**
 * The port an e2e file's `wrangler dev` listens on when `EDGEPLAN_E2E_PORT` pins it (a machine that
 * gives each runner a range); undefined: a free one. Vitest runs e2e files side by side, one in each
 * of its workers: each worker takes its own pair from the base (the server's port and its
 * inspector's, the one after it), so files run together no longer fight over one port.
 */
export function pinnedPort(): number | undefined {
  const base = process.env.EDGEPLAN_E2E_PORT;
  if (!base) return undefined;
  const worker = Number(process.env.VITEST_POOL_ID ?? 1);
  return Number(base) + 2 * (worker - 1);
}

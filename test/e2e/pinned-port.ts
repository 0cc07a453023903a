/**
 * The port an e2e file's `wrangler dev` listens on when `EDGEPLAN_E2E_PORT` pins it (a machine that
 * gives each runner a range); undefined: a free one. Vitest runs e2e files side by side, one in each
 * of its workers: each worker takes its own four from the base (the server's port, its inspector's
 * the one after it, and two for a second server a file starts: `pinnedPort() + 2`), so files run
 * together do not fight over a port — with a pair each, the second server of one worker's file took
 * the next worker's port, and its start failed with "another process answers".
 */
export function pinnedPort(): number | undefined {
  const base = process.env.EDGEPLAN_E2E_PORT;
  if (!base) return undefined;
  const worker = Number(process.env.VITEST_POOL_ID ?? 1);
  return Number(base) + 4 * (worker - 1);
}

/**
 * `wrangler dev`'s inspector on the port after a pinned server port; none when unpinned, and wrangler
 * finds a free one itself (a fixed one, taken by another checkout's server, failed the start).
 * @example startDevServer({ port: pinnedPort(), extraArgs: inspectorArgs(pinnedPort()) })
 */
export function inspectorArgs(port: number | undefined): string[] {
  return port === undefined ? [] : ['--inspector-port', String(port + 1)];
}

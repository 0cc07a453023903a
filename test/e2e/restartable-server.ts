/**
 * A `wrangler dev` and a chromium for a browser test that kills its server and starts another on the
 * same state and port (the page open meanwhile). The server started again does not own that state,
 * so it is removed when the file ends. EDGEPLAN_E2E_PORT pins the port (and the inspector's, the one
 * after it); else a free one.
 * @example const dev = restartableServer('dashboard-reconnect'); … await dev.server().kill(); await dev.restart();
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium } from './chromium';
// @ts-expect-error -- a plain .mjs script without declarations
import { startDevServer } from '../../scripts/dev-server.mjs';
import { inspectorArgs, pinnedPort } from './pinned-port';

export type Dev = {
  base: string;
  port: number;
  persist: string;
  stop(): Promise<void>;
  kill(): Promise<void>;
};

export function restartableServer(name: string): {
  server(): Dev;
  browser(): Browser;
  /** A new server on the killed one's state and port. */
  restart(): Promise<Dev>;
} {
  let server: Dev | undefined;
  let browser: Browser | undefined;
  const pinned = pinnedPort();
  const extraArgs = ['--log-level', 'error', ...inspectorArgs(pinned)];

  beforeAll(async () => {
    server = (await startDevServer({ name, port: pinned, extraArgs })) as Dev;
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (server) rmSync(server.persist, { recursive: true, force: true });
  });

  return {
    server: () => server!,
    browser: () => browser!,
    restart: async () => {
      server = (await startDevServer({
        name,
        persist: server!.persist,
        port: server!.port,
        extraArgs,
      })) as Dev;
      return server;
    },
  };
}

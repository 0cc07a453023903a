/**
 * What every dashboard browser test file sets up, as its vitest hooks: a `wrangler dev` on a throwaway
 * state, Debian's chromium, and — with `webhooks` — an approval-webhook receiver on loopback and the
 * dev server's variables for it; all stopped after the file. `extraArgs` (read once the hooks run, so
 * they may name a server an earlier `beforeAll` started) go to `wrangler dev`.
 */
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium } from './chromium';
import { dashboardHelpers, SHOTS, WEBHOOK_VARS } from './dashboard-helpers';
import { startWebhookReceiver } from './webhook-receiver';
// @ts-expect-error -- a plain .mjs script without declarations
import { startDevServer } from '../../scripts/dev-server.mjs';

export type DevServer = { base: string; port: number; persist: string; stop(): Promise<void> };
type Receiver = Awaited<ReturnType<typeof startWebhookReceiver>>;

export function dashboardSetup(
  name: string,
  { webhooks = false, extraArgs = () => [] }: { webhooks?: boolean; extraArgs?: () => string[] } = {},
) {
  let server: DevServer | undefined;
  let browser: Browser | undefined;
  let hooks: Receiver | undefined;
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    if (webhooks) hooks = await startWebhookReceiver();
    server = (await startDevServer({
      name,
      extraArgs: [...(webhooks ? WEBHOOK_VARS : []), ...extraArgs()],
      // A port of the caller's choosing (as restartable-server.ts takes it), else a free one.
      port: process.env.EDGEPLAN_E2E_PORT ? Number(process.env.EDGEPLAN_E2E_PORT) : undefined,
    })) as DevServer;
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    hooks?.close();
  });
  const started = <T>(what: string, v: T | undefined): T => {
    if (v === undefined) throw new Error(`the ${what} is not started: use it in a test or a later hook`);
    return v;
  };
  const env = {
    get server() {
      return started('dev server', server);
    },
    get browser() {
      return started('browser', browser);
    },
    /** The approval-webhook receiver (with `webhooks: true`). */
    get hooks() {
      return started('webhook receiver', hooks);
    },
  };
  return { env, ...dashboardHelpers(() => ({ base: env.server.base, browser: env.browser })) };
}

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
import { pinnedPort } from './pinned-port';

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
      port: pinnedPort(),
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
  const helpers = dashboardHelpers(() => ({ base: env.server.base, browser: env.browser }));
  /**
   * A goal (`tag: …`) the scripted model plans as `first` and, once a step of it fails, revises as
   * `revised`; every version waits for its own approval (`approval.revisions: "ask"`, its webhooks to
   * this setup's receiver). Resolves with the run's id once v1 awaits approval.
   */
  async function revisingGoal(
    llm: { script(tag: string, answers: string[]): void },
    goal: string,
    first: unknown[],
    revised: unknown[],
  ): Promise<string> {
    llm.script(goal.slice(0, goal.indexOf(':')), [
      JSON.stringify({ steps: first }),
      JSON.stringify({ steps: revised }),
    ]);
    const { run_id } = (await helpers.api('POST', '/v1/runs', {
      goal,
      config: {
        execution_mode: 'sequential',
        require_plan_approval: true,
        approval: { webhook_url: env.hooks.url, revisions: 'ask' },
      },
    })) as { run_id: string };
    await helpers.waitForStatus(run_id, 'awaiting_approval');
    return run_id;
  }
  return { env, ...helpers, revisingGoal };
}

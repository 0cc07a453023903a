/**
 * The dashboard behind Cloudflare Access, in chromium against `wrangler dev` with ACCESS_TEAM_DOMAIN
 * (a loopback stand-in for the team domain, publishing its RS256 key as Access does) and ACCESS_AUD
 * set, and an API_TOKEN the browser never gets. Every request of the page carries the
 * `Cf-Access-Jwt-Assertion` header, as Access adds it at the edge: the page asks for no token, says
 * who is signed in, and approves as them. EDGEPLAN_E2E_PORT pins the ports (the server's, and the
 * team domain's two after it); else free ones.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { Browser } from 'playwright-core';
import { launchChromium } from './chromium';
import { inspectorArgs, pinnedPort } from './pinned-port';
import { SHOTS } from './dashboard-helpers';
import type { DevServer } from './dashboard-setup';
// @ts-expect-error -- a plain .mjs script without declarations
import { startDevServer } from '../../scripts/dev-server.mjs';

const DEV_PORT = pinnedPort();
const AUD = 'dashboard-access-aud';
const EMAIL = 'ada@example.com';

let team: Server | undefined;
let server: DevServer | undefined;
let browser: Browser | undefined;
let jwt = '';

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const keys = [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }];
  team = createServer((req, res) => {
    res.writeHead(req.url === '/cdn-cgi/access/certs' ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(req.url === '/cdn-cgi/access/certs' ? { keys } : {}));
  });
  const teamPort = await new Promise<number>((resolve) =>
    team!.listen(DEV_PORT === undefined ? 0 : DEV_PORT + 2, '127.0.0.1', () =>
      resolve((team!.address() as AddressInfo).port),
    ),
  );
  const TEAM = `http://127.0.0.1:${teamPort}`;
  jwt = await new SignJWT({ email: EMAIL })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setAudience(AUD)
    .setIssuer(TEAM)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(privateKey);
  server = (await startDevServer({
    name: 'dashboard-access',
    port: DEV_PORT,
    extraArgs: [
      ...inspectorArgs(DEV_PORT),
      '--var',
      `ACCESS_TEAM_DOMAIN:${TEAM}`,
      '--var',
      `ACCESS_AUD:${AUD}`,
      '--var',
      'API_TOKEN:a-machine-token-the-browser-never-sees',
    ],
  })) as DevServer;
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await new Promise((resolve) => team?.close(resolve));
});

/** The API as a person behind Access calls it. */
async function api(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${server!.base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', 'Cf-Access-Jwt-Assertion': jwt },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await res.json()) as Record<string, unknown>;
}
async function waitForStatus(runId: string, status: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if ((await api('GET', `/v1/runs/${runId}`)).status === status) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${runId} never reached ${status}`);
}

describe('the dashboard behind Cloudflare Access', () => {
  it('asks for no API token, says who is signed in, and approves as them', async () => {
    // Without Access's header the API is closed: the page below gets in through Access alone.
    expect((await fetch(`${server!.base}/v1/me`)).status).toBe(401);
    const created = await api('POST', '/v1/runs', {
      plan: { goal: 'Approve me as yourself', steps: [{ id: 'a', action: 'demo.echo', parameters: {} }] },
      config: { require_plan_approval: true },
    });
    const runId = created.run_id as string;
    await waitForStatus(runId, 'awaiting_approval');

    const page = await browser!.newPage({ viewport: { width: 1280, height: 800 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.setExtraHTTPHeaders({ 'Cf-Access-Jwt-Assertion': jwt });
    await page.goto(`${server!.base}/#/runs/${runId}`);
    await page.getByText(`Signed in as ${EMAIL}`).waitFor({ timeout: 15_000 });
    await expect(page.getByLabel('API token').count()).resolves.toBe(0);
    const approver = page.getByRole('textbox', { name: /Approver/ });
    await expect(approver.inputValue()).resolves.toBe(EMAIL);
    await expect(approver.getAttribute('readonly')).resolves.not.toBeNull();
    await page.screenshot({ path: `${SHOTS}/access-signed-in.png` });
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.locator('[data-run-status="completed"]').waitFor({ timeout: 15_000 });

    const events = (await api('GET', `/v1/runs/${runId}/events?after=0&limit=1000`)).events as {
      event_type: string;
      payload: Record<string, unknown>;
    }[];
    const granted = events.find((e) => e.event_type === 'ApprovalGranted');
    expect(granted?.payload).toMatchObject({ by: 'approver', approver: EMAIL, approver_via: 'access' });
    // The history says the name is the identity Access verified, not a name someone typed.
    await page
      .locator('.approval-note', { hasText: `approved by ${EMAIL} (verified by Access)` })
      .waitFor({ timeout: 10_000 });
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);
});

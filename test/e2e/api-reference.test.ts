/**
 * The API reference at /docs (#12) in a real browser (Debian's chromium, playwright-core) against
 * `wrangler dev`: Swagger UI renders every operation of /openapi.json from the Worker's own assets,
 * and the page asks nothing of any other origin (it works offline). A screenshot is saved for review
 * in test-results/screenshots/.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { CHROMIUM, launchChromium } from './chromium';
// @ts-expect-error -- a plain .mjs script without declarations
import { startDevServer } from '../../scripts/dev-server.mjs';

const SHOTS = 'test-results/screenshots';
let server: { base: string; stop(): Promise<void> };
let browser: Browser;

beforeAll(async () => {
  expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium`).toBe(true);
  server = (await startDevServer({ name: 'api-reference' })) as typeof server;
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('GET /docs', () => {
  it('renders every operation from the Worker’s own assets, nothing from elsewhere', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const origin = new URL(server.base).origin;
    const elsewhere: string[] = [];
    const failed: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(origin) && !r.url().startsWith('data:')) elsewhere.push(r.url());
    });
    page.on('requestfailed', (r) => failed.push(r.url()));
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${server.base}/docs`);
    await page.waitForSelector('.opblock', { timeout: 20_000 });
    const operations = await page.locator('.opblock').count();
    const doc = (await (await fetch(`${server.base}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
    expect(operations).toBe(documented);
    await expect(page.locator('.title').first().innerText()).resolves.toMatch(/edgeplan/);
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: `${SHOTS}/api-reference.png` });
    expect(elsewhere).toEqual([]);
    expect(failed).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});

#!/usr/bin/env node
/**
 * The dashboard's figures (#13): time to first render of a completed run of 200 and of 1,000 steps
 * (navigation start → every graph node drawn with its final status, chromium headless on this
 * machine, median of 3), and the app's size (app.js + app.css, gzip).
 *
 * Usage: node scripts/bench-dashboard.mjs   (or npm run bench -- --only=dashboard)
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { startDevServer } from './dev-server.mjs';

const server = await startDevServer({
  name: 'edgeplan-bench-dashboard',
  extraArgs: ['--log-level', 'error'],
});
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox'],
});
mkdirSync('test-results/screenshots', { recursive: true });
try {
  const size = ['app.js', 'app.css'].reduce(
    (n, f) => n + gzipSync(readFileSync(`public/app/${f}`), { level: 9 }).length,
    0,
  );
  console.log(`dashboard app: ${(size / 1024).toFixed(1)} KiB gzip (budget 100 KiB)`);
  for (const n of [200, 1000]) {
    // A wide DAG: 20 layers, each step depending on one in the layer before.
    const width = n / 20;
    const steps = Array.from({ length: n }, (_, i) => ({
      id: `s${i}`,
      action: 'demo.echo',
      parameters: { i },
      ...(i >= width ? { dependencies: [`s${i - width}`] } : {}),
    }));
    const res = await fetch(`${server.base}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        plan: { goal: `${n} steps`, steps },
        config: { execution_mode: 'parallel', max_parallel: 50, max_steps: n },
      }),
    });
    const { run_id } = await res.json();
    for (;;) {
      const run = await (await fetch(`${server.base}/v1/runs/${run_id}/status`)).json();
      if (run.run_status === 'completed') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const times = [];
    for (let k = 0; k < 3; k++) {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      await page.goto(`${server.base}/#/runs/${run_id}`);
      await page.waitForFunction(
        (count) => document.querySelectorAll('svg.dag [data-status="completed"]').length === count,
        n,
        { timeout: 60_000, polling: 'raf' },
      );
      times.push(await page.evaluate(() => performance.now()));
      if (k === 0) await page.screenshot({ path: `test-results/screenshots/bench-${n}-steps.png` });
      await page.close();
    }
    times.sort((a, b) => a - b);
    console.log(`first render of a ${n}-step run: ${Math.round(times[1])} ms median (target < 1,500 ms)`);
  }
} finally {
  await browser.close();
  await server.stop();
}

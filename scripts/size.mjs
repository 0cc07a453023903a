#!/usr/bin/env node
// `npm run size`: the Worker bundle as `wrangler deploy` uploads it (a dry run with this repository's
// wrangler.toml, minify on), raw and gzipped, against the 400 KiB gzip budget. Exits 1 when the bundle is over budget. Usage: npm run size [-- --json]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const BUDGET_KIB = 400;
const root = new URL('..', import.meta.url).pathname;
const out = mkdtempSync(join(tmpdir(), 'edgeplan-size-'));
try {
  const r = spawnSync(join(root, 'node_modules/.bin/wrangler'), ['deploy', '--dry-run', '--outdir', out], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, PATH: `${join(root, 'node_modules/.bin')}:${process.env.PATH}` },
  });
  if (r.status !== 0) {
    process.stderr.write(r.stdout + r.stderr);
    process.exit(r.status ?? 1);
  }
  const worker = readFileSync(join(out, 'worker.js'));
  const kib = (n) => n / 1024;
  const gzip = gzipSync(worker, { level: 9 }).length;
  const report = {
    worker_kib: +kib(worker.length).toFixed(1),
    worker_gzip_kib: +kib(gzip).toFixed(1),
    budget_gzip_kib: BUDGET_KIB,
    within_budget: kib(gzip) <= BUDGET_KIB,
  };
  if (process.argv.includes('--json')) console.log(JSON.stringify(report, null, 2));
  else {
    console.log(`Worker bundle (wrangler deploy --dry-run, minified): ${report.worker_kib} KiB`);
    console.log(
      `gzip: ${report.worker_gzip_kib} KiB of ${BUDGET_KIB} KiB (${((100 * kib(gzip)) / BUDGET_KIB).toFixed(0)}%)`,
    );
  }
  if (!report.within_budget) process.exitCode = 1;
} finally {
  rmSync(out, { recursive: true, force: true });
}

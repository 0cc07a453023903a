#!/usr/bin/env node
// The run object's own CPU, without workerd around it (scripts/object-bench/main.ts): bundled with
// esbuild into .bench/, `cloudflare:workers` replaced by a base class, storage on Node's SQLite.
// Under `wrangler dev` the same run costs several times as much workerd CPU (the burst in
// scripts/bench-peers.mjs); the difference is the runtime's: requests, RPC, new objects, timers.
// Usage: node scripts/bench-object.mjs [--reps=100] [--only=run|chain|wide]   (or npm run bench -- --only=object)
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { bundleForNode } from './bundle-for-node.mjs';

const root = new URL('..', import.meta.url).pathname;
const outfile = join(root, '.bench/object-bench.mjs');
await bundleForNode(join(root, 'scripts/object-bench/main.ts'), outfile, {
  'cloudflare:workers': join(root, 'scripts/object-bench/cloudflare-workers.ts'),
});
const r = spawnSync(process.execPath, ['--no-warnings', outfile, ...process.argv.slice(2)], {
  stdio: 'inherit',
});
process.exit(r.status ?? 1);

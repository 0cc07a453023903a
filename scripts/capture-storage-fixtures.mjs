#!/usr/bin/env node
/**
 * `npm run capture:storage [-- --force]`: captures the storage fixtures of the current storage format
 * (src/durable/storage-format.ts) — real run objects in the states a deploy finds runs in, dumped by
 * test/storage-capture/capture.test.ts — into test/fixtures/storage/v<N>/.
 *
 * A format's fixtures are frozen once committed: they stand for the runs in flight that a release
 * with a newer format has to carry on. So this refuses to write over a directory that holds fixtures
 * unless `--force` (say, for a format not yet released). See docs/upgrading.md.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const source = readFileSync(join(root, 'src/durable/storage-format.ts'), 'utf8');
const formats = [...source.matchAll(/^\s+to: (\d+),$/gm)].map((m) => Number(m[1]));
if (formats.length === 0) throw new Error('no format in src/durable/storage-format.ts');
const format = Math.max(...formats);
const dir = join(root, 'test/fixtures/storage', `v${format}`);
const held = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')) : [];
if (held.length > 0 && !process.argv.includes('--force')) {
  console.error(
    `${dir} holds ${held.length} fixture(s) of format ${format}, which are frozen once released.\n` +
      'A change to what a run stores is a new format (docs/upgrading.md); pass --force only for a format not yet released.',
  );
  process.exit(1);
}
mkdirSync(dir, { recursive: true });
const run = (cmd, args, extra = {}) => {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...extra } });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
run('npx', ['vitest', 'run', '--project', 'storage-capture'], { EDGEPLAN_CAPTURE_STORAGE: dir });
run('npx', ['prettier', '--write', dir]);
console.log(`storage format ${format}: ${readdirSync(dir).length} fixture(s) in ${dir}`);

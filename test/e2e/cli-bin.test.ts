/**
 * The package's `bin` as npx runs it in a checkout of the repository. A newcomer types `npx edgeplan`
 * before `npm run build` as often as after: npx links a local package's bin into an install it caches,
 * and a bin pointing at a file not yet built was never linked — so `edgeplan: not found` went on after
 * the build. The bin is a committed file (bin/edgeplan.mjs) that says to build, then runs dist/cli.js.
 * Each case runs npx for real with a cache of its own, on a copy of the package holding only what the
 * bin needs (package.json, bin/, and dist/cli.js once "built").
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  bin: Record<string, string>;
  files: string[];
};

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A checkout with package.json and bin/ but no build, and an npm cache nothing has used. */
function freshCheckout(): { dir: string; npx: (...args: string[]) => ReturnType<typeof spawnSync> } {
  const base = mkdtempSync(join(tmpdir(), 'edgeplan-bin-'));
  made.push(base);
  const dir = join(base, 'edgeplan');
  mkdirSync(dir);
  cpSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  cpSync(join(ROOT, 'bin'), join(dir, 'bin'), { recursive: true });
  const env = {
    ...process.env,
    npm_config_cache: join(base, 'npm-cache'),
    npm_config_update_notifier: 'false',
  };
  const npx = (...args: string[]) =>
    spawnSync('npx', ['--no-install', 'edgeplan', ...args], {
      cwd: dir,
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
  return { dir, npx };
}

/** What `npm run build` leaves for the bin: a dist/cli.js (here one that prints its arguments). */
function build(dir: string): void {
  mkdirSync(join(dir, 'dist'));
  writeFileSync(join(dir, 'dist/cli.js'), 'console.log(JSON.stringify(process.argv.slice(2)));\n');
}

describe('the edgeplan bin', () => {
  it('is a file in the repository, shipped in the package', () => {
    expect(pkg.bin.edgeplan).toBe('./bin/edgeplan.mjs');
    expect(readFileSync(join(ROOT, 'bin/edgeplan.mjs'), 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(
      true,
    );
    expect(pkg.files).toContain('bin');
  });

  it('says to build before a build (exit 2), and runs the command once built, in the same npx cache', () => {
    const { dir, npx } = freshCheckout();
    const before = npx('runs');
    expect({ status: before.status, stderr: before.stderr }).toEqual({
      status: 2,
      stderr: expect.stringContaining('dist/cli.js is not built yet: run `npm run build`'),
    });
    build(dir);
    const after = npx('runs', '--status', 'failed');
    expect({ status: after.status, stdout: after.stdout }).toEqual({
      status: 0,
      stdout: '["runs","--status","failed"]\n',
    });
  });

  it('says so as JSON on stdout with --json', () => {
    const { npx } = freshCheckout();
    const r = npx('runs', '--json');
    expect(r.status).toBe(2);
    expect(JSON.parse(String(r.stdout ?? ''))).toEqual({
      error: { code: 'usage', message: expect.stringContaining('npm run build') },
    });
  });
});

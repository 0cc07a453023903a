#!/usr/bin/env node
/**
 * Adds to package-lock.json the per-platform optional packages it lacks (workerd's, unrs-resolver's,
 * …), so `npm ci` accepts the lockfile on every platform and installs the right binary on each.
 *
 * Why: npm writes only the platform packages its registry could tell it about. A registry mirror
 * that lacks other platforms' builds (as this project's CI mirror does) leaves them out, and then
 * `npm ci` refuses the lockfile ("Missing: @cloudflare/workerd-darwin-arm64@ from lock file") on
 * every machine, this one included. The missing entries are derived from the package names (the
 * `os` / `cpu` / `libc` each build declares follow them); they carry no integrity, so npm checks
 * nothing extra for them and records the tarball's hash on the machine that installs it.
 *
 * Run it after `npm install` changed the lockfile; it changes nothing when nothing is missing.
 * @example
 * node scripts/lock-platforms.mjs            # rewrites package-lock.json
 * node scripts/lock-platforms.mjs --check    # exit 1 when entries are missing
 */
import { readFileSync, writeFileSync } from 'node:fs';

const LOCK = new URL('../package-lock.json', import.meta.url);

/** `os`, `cpu` and `libc` of a platform build, from its name; undefined for a name that is none. */
export function platformOf(name) {
  const suffix = name.replace(/^@[^/]+\//, '');
  const os = [
    ['darwin', 'darwin'],
    ['windows', 'win32'],
    ['win32', 'win32'],
    ['linux', 'linux'],
    ['android', 'android'],
    ['freebsd', 'freebsd'],
    ['openharmony', 'openharmony'],
  ].find(([word]) => suffix.includes(`-${word}-`))?.[1];
  const cpu = [
    ['arm64', 'arm64'],
    ['64', 'x64'],
    ['x64', 'x64'],
    ['ia32', 'ia32'],
    ['arm', 'arm'],
    ['loong64', 'loong64'],
    ['ppc64', 'ppc64'],
    ['riscv64', 'riscv64'],
    ['s390x', 's390x'],
  ].find(([word]) => new RegExp(`-${word}(-|$)`).test(suffix))?.[1];
  if (!os || !cpu) return undefined;
  const libc = /-gnu$/.test(suffix) ? ['glibc'] : /-musl$/.test(suffix) ? ['musl'] : undefined;
  return { os: [os], cpu: [cpu], ...(libc && { libc }) };
}

/** Where npm resolves `dep` from the package at `from`: the nearest `node_modules` holding it. */
function resolved(packages, from, dep) {
  for (let dir = from; ; dir = dir.replace(/\/?node_modules\/(@[^/]+\/)?[^/]+$/, '')) {
    const path = `${dir ? `${dir}/` : ''}node_modules/${dep}`;
    if (packages[path]) return path;
    if (!dir) return undefined;
  }
}

/**
 * The entries to add: `[path, entry]` for every missing optional dependency with a platform. A
 * missing build goes where its installed sibling of the same parent sits (npm places them together).
 */
export function missingEntries(lock) {
  const packages = lock.packages;
  const added = [];
  for (const [from, entry] of Object.entries(packages)) {
    const optional = Object.entries(entry.optionalDependencies ?? {});
    const sibling = optional
      .map(([dep, version]) => [resolved(packages, from, dep), version])
      .find(([path, version]) => path && packages[path].version === version)?.[0];
    const base = sibling ? sibling.slice(0, sibling.lastIndexOf('node_modules/')) : '';
    for (const [dep, version] of optional) {
      const platform = platformOf(dep);
      const path = resolved(packages, from, dep);
      if (!platform || (path && packages[path].version === version)) continue;
      // Keys in npm's order (version first, then by name), so `npm install` rewrites nothing.
      const fields = { ...platform, dev: entry.dev, optional: true };
      const sorted = Object.keys(fields)
        .sort()
        .filter((k) => fields[k] !== undefined);
      added.push([
        `${base}node_modules/${dep}`,
        { version, ...Object.fromEntries(sorted.map((k) => [k, fields[k]])) },
      ]);
    }
  }
  return added;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const lock = JSON.parse(readFileSync(LOCK, 'utf8'));
  const added = missingEntries(lock);
  for (const [path, entry] of added) console.log(`${path}@${entry.version}`);
  if (process.argv.includes('--check')) process.exit(added.length ? 1 : 0);
  if (added.length) {
    const all = { ...lock.packages, ...Object.fromEntries(added) };
    const sorted = Object.keys(all).sort((a, b) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b)));
    lock.packages = Object.fromEntries(sorted.map((k) => [k, all[k]]));
    writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
  }
  console.log(`${added.length} entries added`);
}

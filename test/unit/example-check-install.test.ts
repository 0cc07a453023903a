/**
 * examples/custom-worker's `prestart` (scripts/check-install.mjs): `npm start` in a project where
 * edgeplan is not installed or not built stops with the fix, where wrangler would name a missing
 * directory. Projects are temporary directories shaped as a team's copy of the example.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { nodeProcess } from '../../scripts/eval/node-api';

type Fs = {
  mkdtempSync(prefix: string): string;
  mkdirSync(path: string, opts: { recursive: true }): void;
  writeFileSync(path: string, data: string): void;
  rmSync(path: string, opts: { recursive: true; force: true }): void;
};
type Crypto = {
  createHash(alg: 'sha512'): { update(data: string): { digest(enc: 'base64'): string } };
};
type ChildProcess = {
  spawnSync(
    this: void,
    cmd: string,
    args: string[],
    opts: { encoding: 'utf8' },
  ): { status: number | null; stdout: string; stderr: string };
};
const node = nodeProcess();
const fs = node.getBuiltinModule('node:fs') as Fs;
const { spawnSync } = node.getBuiltinModule('node:child_process') as ChildProcess;
const { tmpdir } = node.getBuiltinModule('node:os') as { tmpdir(this: void): string };
const root = `${(node as unknown as { cwd(): string }).cwd()}/`;
const script = `${root}examples/custom-worker/scripts/check-install.mjs`;

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** sha512 of some bytes, as npm writes a tarball's integrity. */
const integrity = (data: string) =>
  `sha512-${(node.getBuiltinModule('node:crypto') as Crypto).createHash('sha512').update(data).digest('base64')}`;

/**
 * A project depending on edgeplan as `spec`, with the given parts of the package installed; `vendored`:
 * the tarball's bytes in vendor/, and `recorded` the integrity npm's install record gives edgeplan.
 */
function project(spec: string, installed: string[], tarball?: { vendored: string; recorded: string }) {
  const dir = fs.mkdtempSync(`${tmpdir()}/edgeplan-check-install-`);
  dirs.push(dir);
  fs.writeFileSync(`${dir}/package.json`, JSON.stringify({ dependencies: { edgeplan: spec } }));
  for (const part of installed) fs.mkdirSync(`${dir}/node_modules/edgeplan/${part}`, { recursive: true });
  if (tarball) {
    fs.mkdirSync(`${dir}/vendor`, { recursive: true });
    fs.writeFileSync(`${dir}/vendor/edgeplan-0.1.0.tgz`, tarball.vendored);
    const record = {
      packages: { 'node_modules/edgeplan': { version: '0.1.0', integrity: tarball.recorded } },
    };
    fs.writeFileSync(`${dir}/node_modules/.package-lock.json`, JSON.stringify(record));
  }
  const r = spawnSync(node.argv[0]!, [script, dir], { encoding: 'utf8' });
  return { dir, status: r.status, stderr: r.stderr };
}

describe('examples/custom-worker npm start (prestart)', () => {
  it('goes on, silently, when edgeplan is installed with its migrations and built assets', () => {
    const r = project('file:vendor/edgeplan-0.1.0.tgz', ['migrations', 'dist/public']);
    expect([r.status, r.stderr]).toEqual([0, '']);
  });

  it('goes on when the vendored tarball is the one npm installed', () => {
    const tgz = { vendored: 'edgeplan, packed', recorded: integrity('edgeplan, packed') };
    const r = project('file:vendor/edgeplan-0.1.0.tgz', ['migrations', 'dist/public'], tgz);
    expect([r.status, r.stderr]).toEqual([0, '']);
  });

  it('says to install a newer tarball copied over vendor/ by its path, which npm install alone does not take', () => {
    const tgz = { vendored: 'edgeplan, packed again', recorded: integrity('edgeplan, packed') };
    const r = project('file:vendor/edgeplan-0.1.0.tgz', ['migrations', 'dist/public'], tgz);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `node_modules/edgeplan in ${r.dir} is not vendor/edgeplan-0.1.0.tgz: the tarball changed since it was ` +
        "installed, and npm install and npm ci keep the one package-lock.json records (from npm's cache: the " +
        "file's name is the same). Install it by its path: npm install ./vendor/edgeplan-0.1.0.tgz — then " +
        'commit package-lock.json with it\n',
    );
  });

  it('says to install the tarball when a copy still links file:../.. (no migrations there)', () => {
    const r = project('file:../..', []);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `edgeplan is not installed in ${r.dir}: node_modules/edgeplan/migrations is missing (package.json has ` +
        '"edgeplan": "file:../..", which points two directories up). Install the packed tarball: npm install ' +
        './vendor/edgeplan-<version>.tgz, the tarball `npm pack` writes in an edgeplan checkout ' +
        '(`edgeplan init <dir>` makes a project with it in place)\n',
    );
  });

  it('says to build edgeplan first inside the repository, where the link has no dist/', () => {
    const r = project('file:../..', ['migrations']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /is not built: dist\/ is missing\. Inside the repository, build it first: \(cd \.\.\/\.\. && npm install && npm run build\)\n$/,
    );
  });

  it('says to install the tarball (which comes built) when another install lacks dist/', () => {
    const r = project('file:../edgeplan', ['migrations']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /is not built: dist\/ is missing\. Install the packed tarball, which comes built: npm install \.\/vendor\//,
    );
  });
});

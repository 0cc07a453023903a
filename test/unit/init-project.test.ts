import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/exit-codes';
import { GITIGNORE, initProject, projectName, projectReadme } from '../../src/cli/init-project';

const scratch = mkdtempSync(join(tmpdir(), 'edgeplan-init-unit-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('edgeplan init', () => {
  it("names the project after its directory as a Worker's name allows", () => {
    expect(projectName('my-agent')).toBe('my-agent');
    expect(projectName('My Agent')).toBe('my-agent');
    expect(projectName('ops_agent.v2')).toBe('ops-agent-v2');
    expect(projectName('--x--')).toBe('x');
    expect(projectName('日本')).toBe('my-agent');
    // A queue's name is at most 63 characters, `-steps-dlq` included.
    expect(`${projectName('a'.repeat(100))}-steps-dlq`.length).toBeLessThanOrEqual(63);
  });

  it("points its README only at files the installed package ships and the project's own", () => {
    const readme = projectReadme('my-agent', 'vendor/edgeplan-0.1.0.tgz', '0.1.0');
    const { files } = JSON.parse(readFileSync('package.json', 'utf8')) as { files: string[] };
    const inPackage = [...readme.matchAll(/node_modules\/edgeplan\/([\w./-]*[\w/])/g)].map(([, p = '']) => p);
    expect(inPackage).toContain('docs/upgrading.md');
    const unshipped = inPackage.filter(
      (p) => !existsSync(p) || !(p === 'README.md' || files.some((f) => p === f || p.startsWith(`${f}/`))),
    );
    expect(unshipped).toEqual([]);
    const inProject = [...readme.matchAll(/`[^`]*?\b((?:scripts|src|test)\/[\w.-]+)/g)].map(
      ([, p = '']) => p,
    );
    expect(inProject).toContain('scripts/fake-wrangler.mjs');
    expect(inProject.filter((p) => !existsSync(join('examples/custom-worker', p)))).toEqual([]);
  });

  it("writes the example's own .gitignore where a tarball left it out (npm packs no .gitignore)", () => {
    expect(GITIGNORE).toBe(readFileSync('examples/custom-worker/.gitignore', 'utf8'));
  });

  it('refuses a directory with anything in it, and a package that is not edgeplan, as usage errors', () => {
    const taken = join(scratch, 'taken');
    mkdirSync(taken);
    writeFileSync(join(taken, 'notes.txt'), 'mine');
    expect(() => initProject({ dir: taken, from: process.cwd() })).toThrow(UsageError);
    expect(() => initProject({ dir: taken, from: process.cwd() })).toThrow(/is not empty/);
    expect(readFileSync(join(taken, 'notes.txt'), 'utf8')).toBe('mine');
    const elsewhere = join(scratch, 'elsewhere');
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, 'package.json'), JSON.stringify({ name: 'other', version: '1.0.0' }));
    expect(() => initProject({ dir: join(scratch, 'new'), from: elsewhere })).toThrow(
      /is not the edgeplan package/,
    );
    // A failure part way (npm pack refusing a package whose version is no version) leaves nothing.
    const broken = join(scratch, 'broken');
    for (const d of ['dist/public', 'examples/custom-worker'])
      mkdirSync(join(broken, d), { recursive: true });
    for (const f of ['dist/index.js', 'dist/worker.js', 'examples/custom-worker/wrangler.toml'])
      writeFileSync(join(broken, f), '');
    writeFileSync(
      join(broken, 'package.json'),
      JSON.stringify({ name: 'edgeplan', version: 'not-a-version' }),
    );
    const half = join(scratch, 'half');
    expect(() => initProject({ dir: half, from: broken })).toThrow();
    expect(existsSync(half)).toBe(false);
    // Nor inside the package itself, whose own checks would take the project for theirs.
    expect(() => initProject({ dir: 'my-agent', from: process.cwd() })).toThrow(
      /is inside the edgeplan package at .*: make the project beside it \(edgeplan init \.\.\/my-agent\)/,
    );
  });
});

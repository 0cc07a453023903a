/**
 * `npm run deploy` (scripts/deploy.mjs) against a stub `wrangler` first on PATH
 * (test/fixtures/wrangler-stub): it creates what is missing by name, writes the real ids into
 * wrangler.deploy.toml, migrates remotely, deploys, and a second run creates nothing.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { nodeProcess } from '../../scripts/eval/node-api';

type Fs = {
  mkdtempSync(prefix: string): string;
  readFileSync(path: string, encoding: 'utf8'): string;
  writeFileSync(path: string, data: string): void;
  copyFileSync(from: string, to: string): void;
  rmSync(path: string, opts: { recursive: true; force: true }): void;
  readdirSync(path: string): string[];
  mkdirSync(path: string): void;
};
type ChildProcess = {
  spawnSync(
    this: void,
    cmd: string,
    args: string[],
    opts: { cwd: string; env: Record<string, string | undefined>; encoding: 'utf8' },
  ): { status: number | null; stdout: string; stderr: string };
};
const node = nodeProcess();
const fs = node.getBuiltinModule('node:fs') as Fs;
const { spawnSync } = node.getBuiltinModule('node:child_process') as ChildProcess;
const { tmpdir } = node.getBuiltinModule('node:os') as { tmpdir(this: void): string };

/** The project root: vitest runs from it. */
const root = `${(node as unknown as { cwd(): string }).cwd()}/`;
type Account = {
  d1: { uuid: string; name: string }[];
  kv: { id: string; title: string }[];
  queues: { id: string; name: string }[];
};

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** A project directory (a copy of wrangler.toml) and an account in the stub's state. */
function setup(initial: Account) {
  const dir = fs.mkdtempSync(`${tmpdir()}/edgeplan-deploy-`);
  dirs.push(dir);
  fs.copyFileSync(`${root}wrangler.toml`, `${dir}/wrangler.toml`);
  fs.writeFileSync(`${dir}/state.json`, JSON.stringify(initial));
  /** Runs the deploy script; returns its exit status and the wrangler commands it issued. */
  const deploy = (args: string[] = [], extraEnv: Record<string, string> = {}) => {
    fs.writeFileSync(`${dir}/log.jsonl`, '');
    const r = spawnSync(node.argv[0]!, [`${root}scripts/deploy.mjs`, ...args], {
      cwd: dir,
      encoding: 'utf8',
      env: {
        ...node.env,
        PATH: `${root}test/fixtures/wrangler-stub:${node.env.PATH}`,
        STUB_LOG: `${dir}/log.jsonl`,
        STUB_STATE: `${dir}/state.json`,
        ...extraEnv,
      },
    });
    const commands = fs
      .readFileSync(`${dir}/log.jsonl`, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as string[]).join(' '));
    return { status: r.status, stderr: r.stderr, commands };
  };
  const config = () => fs.readFileSync(`${dir}/wrangler.deploy.toml`, 'utf8');
  const account = () => JSON.parse(fs.readFileSync(`${dir}/state.json`, 'utf8')) as Account;
  return { dir, deploy, config, account };
}

const empty: Account = { d1: [], kv: [], queues: [] };
const creates = (commands: string[]) => commands.filter((c) => / create /.test(c));

// Every wrangler call starts a Node process: seconds on a busy machine.
describe('npm run deploy', { timeout: 60_000 }, () => {
  it('creates everything on an empty account, then migrates and deploys with the real ids', () => {
    const { deploy, config, account, dir } = setup(empty);
    const run = deploy(['--outdir', `${dir}/out`]);
    expect(run.status).toBe(0);
    expect(run.commands).toEqual([
      'd1 list --json',
      'd1 create edgeplan --update-config=false',
      'd1 list --json',
      'kv namespace list',
      'kv namespace create edgeplan-kv --update-config=false',
      'kv namespace list',
      'queues list --page 1',
      'queues create steps',
      'queues create steps-dlq',
      'd1 migrations apply DB --remote --config wrangler.deploy.toml',
      `deploy --config wrangler.deploy.toml --outdir ${dir}/out`,
    ]);
    const { d1, kv } = account();
    expect(config()).toContain(`database_id = "${d1[0]!.uuid}"`);
    expect(config()).toContain(`id = "${kv[0]!.id}"`);
    expect(config()).not.toContain('"00000000-0000-0000-0000-000000000000"');
    expect(config()).not.toContain(`"${'0'.repeat(32)}"`);
    // The committed config keeps its placeholders: local dev is untouched.
    expect(fs.readFileSync(`${dir}/wrangler.toml`, 'utf8')).toBe(
      fs.readFileSync(`${root}wrangler.toml`, 'utf8'),
    );
  });

  it('creates a KV namespace of the team’s own beside edgeplan’s and deploys it with its real id, not its placeholder', () => {
    const { deploy, config, account, dir } = setup(empty);
    const toml = fs.readFileSync(`${dir}/wrangler.toml`, 'utf8');
    const placeholder = '1'.repeat(32);
    fs.writeFileSync(
      `${dir}/wrangler.toml`,
      `${toml}\n[[kv_namespaces]]\nbinding = "TRIAGE_KV"\nid = "${placeholder}"\n`,
    );
    expect(deploy().status).toBe(0);
    const titles = account().kv.map((ns) => ns.title);
    expect(titles).toEqual(['edgeplan-kv', 'edgeplan-triage_kv']);
    const team = account().kv[1]!;
    expect(config()).toContain(`binding = "TRIAGE_KV"\nid = "${team.id}"`);
    expect(config()).not.toContain(placeholder);
    // Found by title the next time: nothing created again.
    expect(creates(deploy().commands)).toEqual([]);
  });

  it('--dry-run touches no account: no listing, creating or migrating, only the bundle built', () => {
    const { deploy, account, dir } = setup(empty);
    const run = deploy(['--dry-run', '--outdir', `${dir}/out`]);
    expect(run.status).toBe(0);
    expect(run.commands).toEqual([`deploy --dry-run --outdir ${dir}/out`]);
    expect(run.stderr).toContain('nothing is created, migrated or uploaded');
    expect(account()).toEqual(empty);
    expect(fs.readdirSync(dir)).not.toContain('wrangler.deploy.toml');
  });

  it('creates nothing when run again, and writes the same config', () => {
    const { deploy, config } = setup(empty);
    expect(deploy().status).toBe(0);
    const first = config();
    const again = deploy();
    expect(again.status).toBe(0);
    expect(creates(again.commands)).toEqual([]);
    expect(again.commands).toEqual([
      'd1 list --json',
      'kv namespace list',
      'queues list --page 1',
      'd1 migrations apply DB --remote --config wrangler.deploy.toml',
      'deploy --config wrangler.deploy.toml',
    ]);
    expect(config()).toBe(first);
  });

  it('creates only what is missing, and finds existing resources by name among others', () => {
    const { deploy, config } = setup({
      d1: [
        { uuid: 'aaaaaaaa-0000-4000-8000-000000000000', name: 'other' },
        { uuid: 'bbbbbbbb-0000-4000-8000-000000000000', name: 'edgeplan' },
      ],
      kv: [{ id: 'c'.repeat(32), title: 'edgeplan' }],
      queues: [{ id: 'd'.repeat(32), name: 'steps' }],
    });
    const run = deploy();
    expect(run.status).toBe(0);
    expect(creates(run.commands)).toEqual([
      'kv namespace create edgeplan-kv --update-config=false',
      'queues create steps-dlq',
    ]);
    expect(config()).toContain('database_id = "bbbbbbbb-0000-4000-8000-000000000000"');
  });

  it('refuses a config whose steps queue or its dead-letter queue nothing consumes, before any wrangler call', () => {
    const toml = fs.readFileSync(`${root}wrangler.toml`, 'utf8');
    /** The config without the consumer block of `queue`. */
    const without = (queue: string) =>
      toml
        .split(/^(?=\[)/m)
        .filter(
          (part) =>
            !(part.startsWith('[[queues.consumers]]') && new RegExp(`^queue = "${queue}"$`, 'm').test(part)),
        )
        .join('');
    for (const [queue, says] of [
      [
        'steps',
        'wrangler.toml sends steps to queue "steps" ([[queues.producers]] binding STEPS) but has no [[queues.consumers]] for it',
      ],
      [
        'steps-dlq',
        'wrangler.toml dead-letters steps to queue "steps-dlq" but has no [[queues.consumers]] for it',
      ],
    ] as const) {
      const { deploy, dir, account } = setup(empty);
      fs.writeFileSync(`${dir}/wrangler.toml`, without(queue));
      for (const args of [[], ['--dry-run', '--outdir', `${dir}/out`]]) {
        const run = deploy(args);
        expect(run.status).toBe(1);
        expect(run.stderr).toContain(says);
        expect(run.stderr).toContain(`[[queues.consumers]]\nqueue = "${queue}"`);
        expect(run.commands).toEqual([]);
      }
      expect(account()).toEqual(empty);
    }
    // The repository's own config (both consumers) passes: the other tests deploy it.
    expect(without('none')).toBe(toml);
  });

  it('finds queues past the first page of `wrangler queues list` (a busy account), creating none again', () => {
    const others = Array.from({ length: 5 }, (_, i) => ({ id: `${i}`.repeat(32), name: `other-${i}` }));
    const { deploy } = setup({
      d1: [{ uuid: 'bbbbbbbb-0000-4000-8000-000000000000', name: 'edgeplan' }],
      kv: [{ id: 'c'.repeat(32), title: 'edgeplan-kv' }],
      queues: [...others, { id: 'd'.repeat(32), name: 'steps' }, { id: 'e'.repeat(32), name: 'steps-dlq' }],
    });
    // Two queues a page: steps and steps-dlq are on the fourth.
    const run = deploy([], { STUB_QUEUE_PAGE: '2' });
    expect(run.stderr).not.toContain('Queue name already taken');
    expect(run.status).toBe(0);
    expect(creates(run.commands)).toEqual([]);
    expect(run.commands.filter((c) => c.startsWith('queues list'))).toEqual(
      [1, 2, 3, 4].map((p) => `queues list --page ${p}`),
    );
  });

  it('stops with exit 1 and says which command failed', () => {
    const { deploy } = setup(empty);
    const run = deploy([], { STUB_FAIL: 'd1 migrations' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(
      'wrangler d1 migrations apply DB --remote --config wrangler.deploy.toml exited with 3',
    );
    expect(run.commands.some((c) => c.startsWith('deploy'))).toBe(false);
  });

  it('runs the stand-in EDGEPLAN_WRANGLER names rather than the wrangler first on PATH', () => {
    const { dir, deploy } = setup(empty);
    // As under `npm run deploy`: the project's own wrangler (here one that must not run) comes first.
    fs.writeFileSync(`${dir}/wrangler`, '#!/bin/sh\necho "the project\'s wrangler ran" >&2\nexit 9\n');
    (node.getBuiltinModule('node:fs') as { chmodSync(p: string, m: number): void }).chmodSync(
      `${dir}/wrangler`,
      0o755,
    );
    const stub = `${root}test/fixtures/wrangler-stub/wrangler`;
    const run = deploy([], { PATH: `${dir}:${node.env.PATH}`, EDGEPLAN_WRANGLER: stub });
    expect(run.status).toBe(0);
    expect(run.stderr).not.toContain("the project's wrangler ran");
    expect(run.stderr).toContain(`$ wrangler (EDGEPLAN_WRANGLER=${stub}) d1 list --json`);
    expect(run.commands.at(-1)).toBe('deploy --config wrangler.deploy.toml');
    const missing = deploy(['--dry-run'], { EDGEPLAN_WRANGLER: `${dir}/no-such-wrangler` });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain(
      `deploy: EDGEPLAN_WRANGLER=${dir}/no-such-wrangler could not be started (spawnSync ${dir}/no-such-wrangler ENOENT): name an executable file, or unset it to run the project's wrangler`,
    );
  });

  it('says how to log in when the account cannot be listed, and asks for no login on a dry run', () => {
    const { deploy } = setup(empty);
    const run = deploy([], { STUB_FAIL: 'd1 list' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(
      "deploy: wrangler d1 list --json exited with 3; wrangler's message above says why. Not logged in? " +
        'Run `npx wrangler login` (in CI, set CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID), then deploy again. ' +
        'To rehearse without an account, name a stand-in for wrangler: `EDGEPLAN_WRANGLER=<your stand-in> npm run deploy` ' +
        '(one first on PATH is not used: npm run puts node_modules/.bin ahead of it).',
    );
    expect(run.commands).toEqual(['d1 list --json']);
    // A project `edgeplan init` made has its stand-in in scripts/: the hint names it, to run as printed.
    const { dir: project, deploy: deployProject } = setup(empty);
    fs.mkdirSync(`${project}/scripts`);
    fs.writeFileSync(`${project}/scripts/fake-wrangler.mjs`, '');
    expect(deployProject([], { STUB_FAIL: 'd1 list' }).stderr).toContain(
      'name a stand-in for wrangler: `EDGEPLAN_WRANGLER=$PWD/scripts/fake-wrangler.mjs npm run deploy`',
    );
    const dry = deploy(['--dry-run'], { STUB_FAIL: 'deploy' });
    expect(dry.status).toBe(1);
    expect(dry.stderr).toContain('deploy: wrangler deploy --dry-run exited with 3\n');
  });
});

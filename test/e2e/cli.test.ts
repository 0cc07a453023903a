/**
 * The `edgeplan` command end to end (#12), against `wrangler dev` started here: a parallel plan run and
 * watched to completion, a broken TEA file validated with its line numbers, approval with an edit,
 * `--json` parsed, usage errors, and the live TTY view rendered in a real pseudo-terminal (tmux).
 */
import { execFileSync, spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script without declarations
import { migratedState, startDevServer } from '../../scripts/dev-server.mjs';
import { pinnedPort } from './pinned-port';
import { openTerminal, type Terminal } from './tmux-terminal';

type Server = { base: string; stop(): Promise<void> };

const root = process.cwd();
const dir = mkdtempSync(join(tmpdir(), 'edgeplan-cli-'));
const cli = join(dir, 'edgeplan.mjs');
let server: Server;

/** Runs the command; never throws, so exit codes are asserted. */
function edgeplan(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [cli, ...args], {
    cwd: dir,
    env: { ...process.env, EDGEPLAN_URL: server.base, NO_COLOR: '1', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** Starts the command (not waiting for it): its output so far, its exit, a wait for a line. */
function launch(args: string[], url: string) {
  const child = spawn(process.execPath, [cli, ...args], {
    cwd: dir,
    env: { ...process.env, EDGEPLAN_URL: url, NO_COLOR: '1' },
  });
  const text = { out: '', err: '' };
  let ended = false;
  child.stdout.on('data', (d: Buffer) => (text.out += String(d)));
  child.stderr.on('data', (d: Buffer) => (text.err += String(d)));
  // 'close', not 'exit': the command exited and all it wrote has been read (on a loaded machine its
  // last lines were still in the pipe when 'exit' came).
  const exited = new Promise<number | null>((r) =>
    child.on('close', (code) => {
      ended = true;
      r(code);
    }),
  );
  return {
    child,
    out: () => text.out,
    err: () => text.err,
    exited,
    /** Until `pattern` shows on stdout (or stderr), or the command has exited (the test's timeout bounds it). */
    async until(pattern: RegExp, stream: 'out' | 'err' = 'out') {
      while (!pattern.test(text[stream]) && !ended) await new Promise((r) => setTimeout(r, 50));
    },
  };
}

/** The seq of the last question run `id` asked (its last InputRequested event), as `edgeplan events --json` lists it. */
const lastQuestion = (id: string): number | undefined =>
  edgeplan(['events', id, '--json'])
    .out.trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { event_type: string; seq: number })
    .findLast((e) => e.event_type === 'InputRequested')?.seq;

/**
 * Run `id`'s last question's deadline as the CLI says it (`2026-12-02 10:37 UTC`) and what happens
 * then, from its InputRequested in `edgeplan events --json`: the JSON carries them.
 */
const lastQuestionDue = (id: string): { at: string; if_unanswered: string; retries_left: number } => {
  const asked = edgeplan(['events', id, '--json'])
    .out.trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { event_type: string; payload: Record<string, unknown> })
    .findLast((e) => e.event_type === 'InputRequested')!.payload;
  const deadline = asked.deadline as string;
  expect(deadline).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  return {
    at: `${deadline.slice(0, 16).replace('T', ' ')} UTC`,
    if_unanswered: asked.if_unanswered as string,
    retries_left: asked.retries_left as number,
  };
};

const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return name;
};

const parallelPlan = {
  goal: 'fan out and join',
  steps: [
    { id: 'a', action: 'demo.sleep', parameters: { ms: 200 } },
    { id: 'b', action: 'demo.sleep', parameters: { ms: 300 } },
    { id: 'c', action: 'demo.echo', parameters: { value: 'joined' }, dependencies: ['a', 'b'] },
  ],
};

/** A team's MCP server (its own process): one tool plans can call, and one whose name MCP does not allow. */
let mcp: ChildProcessWithoutNullStreams;

beforeAll(async () => {
  execFileSync(process.execPath, [join(root, 'scripts/build-cli.mjs'), '--out', cli], { cwd: root });
  mcp = spawn(process.execPath, [join(root, 'test/e2e/team-mcp-server.mjs')]);
  const port = await new Promise<number>((resolve, reject) => {
    mcp.stdout.once('data', (d: Buffer) => resolve(Number(String(d).trim())));
    mcp.once('exit', (code) => reject(new Error(`the team's MCP server exited (${code})`)));
  });
  const servers = [{ name: 'team', url: `http://127.0.0.1:${port}/mcp` }];
  server = (await startDevServer({
    name: 'cli-e2e',
    extraArgs: ['--var', `MCP_SERVERS:${JSON.stringify(servers)}`],
    // EDGEPLAN_E2E_PORT pins the port (a machine that gives each runner a range); else a free one.
    port: pinnedPort(),
  })) as Server;
}, 120_000);

afterAll(async () => {
  await server?.stop();
  mcp?.kill();
  rmSync(dir, { recursive: true, force: true });
});

// Each case starts the command several times (up to ~20 processes, one after the other): ~1 s on an idle
// machine, 6–8 s on a loaded one (measured). The 5 s default bounds the machine's load, not the CLI.
describe('edgeplan (CLI)', { timeout: 60_000 }, () => {
  it('runs a parallel plan and watches it to completion, one line per event', () => {
    const r = edgeplan([
      'run',
      file('par.json', JSON.stringify(parallelPlan)),
      '--watch',
      '--config',
      'execution_mode=parallel',
    ]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const lines = r.out.trim().split('\n');
    expect(lines[0]).toMatch(/^run run_[A-Za-z0-9]+$/);
    expect(lines.filter((l) => /ToolInvoked\s+[ab]\s/.test(l))).toHaveLength(2);
    expect(lines.at(-1)).toMatch(/RunTerminated\s+completed/);
    // seq strictly increasing: every event once, in order
    const seqs = lines.slice(1).map((l) => Number(l.trim().split(/\s+/)[0]));
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  });

  it('lists each run on one row: a goal over several lines on its own, none said as "-"', () => {
    const twoLines = { goal: 'first line\nsecond line', steps: [{ id: 'a', action: 'demo.echo' }] };
    const none = { steps: [{ id: 'a', action: 'demo.echo' }] };
    const ids = [
      file('two-lines.json', JSON.stringify(twoLines)),
      file('no-goal.json', JSON.stringify(none)),
    ].map((f) => /^run (run_[A-Za-z0-9]+)$/m.exec(edgeplan(['run', f, '--watch']).out)![1]!);
    const listed = edgeplan(['runs']).out.split('\n');
    const row = (id: string) => listed.find((l) => l.startsWith(id)) ?? '';
    expect(row(ids[0]!)).toMatch(/ {2}first line second line$/);
    expect(row(ids[1]!)).toMatch(/ {2}-$/);
    expect(listed.some((l) => l.startsWith('second line'))).toBe(false);
  });

  it('show says when a step waiting for its retry tries again', () => {
    const flaky = { steps: [{ id: 'flaky', action: 'demo.flaky', parameters: { fail_times: 1 } }] };
    const started = edgeplan([
      'run',
      file('flaky-later.json', JSON.stringify(flaky)),
      '--json',
      '--config',
      'retry_failed_steps=1',
      '--config',
      'retry_delay=600',
    ]);
    const id = (JSON.parse(started.out) as { run_id: string }).run_id;
    let shown = '';
    for (let i = 0; i < 100 && !/retry at/.test(shown); i++) shown = edgeplan(['runs', 'show', id]).out;
    const run = JSON.parse(edgeplan(['runs', 'show', id, '--json']).out) as {
      steps: Record<string, { retry_at?: string }>;
    };
    const at = run.steps.flaky!.retry_at!;
    expect(shown).toMatch(
      new RegExp(`^flaky +pending +×1 .* retry at ${at.slice(11, 19)} UTC: demo\\.flaky: attempt 1`, 'm'),
    );
    edgeplan(['cancel', id]);
  });

  it('writes no terminal escape a run’s text carries: a goal or a finding’s key shows its escapes, not their effect', () => {
    // A window title, a cleared screen, the clipboard (OSC 52), a carriage return writing over the line.
    const hostile = 'ok\u001b]0;pwned\u0007\u001b[2J\u001b]52;c;cHduZWQ=\u0007\rfake\u009b31m';
    const plan = { goal: hostile, steps: [{ id: 'a', action: 'demo.echo', parameters: { v: hostile } }] };
    const ran = edgeplan(['run', file('esc.json', JSON.stringify(plan)), '--watch']);
    expect(ran.code).toBe(0);
    const id = /^run (run_[A-Za-z0-9]+)$/m.exec(ran.out)![1]!;
    const outputs = [
      ran,
      edgeplan(['runs']),
      edgeplan(['runs', 'show', id]),
      edgeplan(['runs', 'show', id, '--json']),
      edgeplan([
        'validate',
        file('esc-key.json', JSON.stringify({ steps: [{ id: 'a', action: 'demo.echo', [hostile]: 1 }] })),
      ]),
    ];
    // What a terminal acts on: C0 controls but tab and line feed, DEL and C1.
    const acted = (text: string) =>
      [...text].filter((c) => {
        const n = c.codePointAt(0)!;
        return (n < 0x20 && n !== 0x09 && n !== 0x0a) || (n >= 0x7f && n <= 0x9f);
      });
    for (const r of outputs) expect(acted(`${r.out}${r.err}`)).toEqual([]);
    expect(outputs[1]!.out).toContain('ok\\u001b]0;pwned\\u0007');
    expect(`${outputs[4]!.out}${outputs[4]!.err}`).toContain('\\u001b[2J');
    // JSON stays JSON: the escapes read back as the characters.
    expect((JSON.parse(outputs[3]!.out) as { goal: string }).goal).toBe(hostile);
  });

  it('validates a broken TEA workflow: its findings with file:line, exit 1', () => {
    const yaml = [
      'name: broken',
      'nodes:',
      '  - name: fetch',
      '    uses: demo.echo',
      '  - name: summarize',
      '    uses: demo.echo',
      'edges:',
      '  - from: __start__',
      '    to: fetch',
      '  - from: fetch',
      '    to: nowhere',
    ].join('\n');
    const r = edgeplan(['validate', file('broken.yaml', yaml)]);
    expect(r.code).toBe(1);
    // Line 10 is the edge that goes nowhere.
    expect(r.out).toMatch(/^broken\.yaml:10: error unknown_node/m);
    const ok = edgeplan(['validate', file('ok.json', JSON.stringify(parallelPlan))]);
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/ok\.json is valid: 3 steps/);
    const one = edgeplan([
      'validate',
      file('one.json', JSON.stringify({ goal: 'g', steps: [parallelPlan.steps[0]] })),
    ]);
    expect(one.out).toMatch(/one\.json is valid: 1 step, critical path/);
  });

  it('points a JSON plan’s findings at their line: the value at fault', () => {
    const bad = JSON.stringify(
      { goal: 'g', steps: [{ id: 'a', action: 'demo.echo', dependencies: ['zzz'] }] },
      null,
      2,
    );
    const r = edgeplan(['validate', file('bad.json', bad)]);
    expect(r.code).toBe(1);
    // Line 8 is the dependency that names no step.
    expect(r.out).toMatch(/^bad\.json:8: error \w+ \[a\]: .*zzz/m);
  });

  it('validates a plan with --input as run would take it: a number where a string is wanted is found', () => {
    const plan = JSON.stringify(
      { goal: 'g', steps: [{ id: 'a', action: 'demo.sleep', parameters: { ms: '{{ input.ms }}' } }] },
      null,
      2,
    );
    const r = edgeplan(['validate', file('typed.json', plan), '--input', 'ms="5"']);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(
      /^typed\.json:\d+: error bad_reference \[a\]: .*\{\{ input\.ms \}\} is a string but parameters\.ms of tool demo\.sleep expects a number/m,
    );
    expect(edgeplan(['validate', 'typed.json', '--input', 'ms=5']).code).toBe(0);
  });

  /** `run par.json` with plan approval on: it waits (exit 3). */
  const awaitingApproval = () => {
    const started = edgeplan([
      'run',
      'par.json',
      '--no-watch',
      '--json',
      '--config',
      'require_plan_approval=true',
    ]);
    expect(started.code).toBe(3);
    return started;
  };

  it('rejects a plan: says rejected, as `runs` shows the run, not the cancelled it ends as', () => {
    const started = awaitingApproval();
    const id = (JSON.parse(started.out) as { run_id: string }).run_id;
    const rejected = edgeplan(['reject', id, '-m', 'not today']);
    expect(rejected.code).toBe(0);
    expect(rejected.out.trim()).toMatch(new RegExp(`^${id}  rejected`));
    expect(edgeplan(['runs', 'show', id]).out).toMatch(/rejected/);
    // What the list shows, --status finds: the API lists the run as cancelled.
    const ids = (status: string) =>
      (
        JSON.parse(edgeplan(['runs', '--status', status, '--limit', '200', '--json']).out) as {
          runs: { run_id: string }[];
        }
      ).runs.map((r) => r.run_id);
    expect(ids('rejected')).toContain(id);
    expect(ids('cancelled')).not.toContain(id);
    const bogus = edgeplan(['runs', '--status', 'refused']);
    expect({ code: bogus.code, err: bogus.err }).toEqual({
      code: 2,
      err: expect.stringContaining('--status refused: not a status a run is listed with; give one of'),
    });
  });

  it('finds a cancelled run behind a page of rejected ones: `runs --status cancelled` reads on, as the dashboard does', () => {
    const idOf = (r: { out: string }) => (JSON.parse(r.out) as { run_id: string }).run_id;
    const cancelled = idOf(awaitingApproval());
    expect(edgeplan(['cancel', cancelled]).code).toBe(0);
    // Newer than it, two rejected runs: the API's first page of `cancelled` (limit 2) holds only them.
    for (let i = 0; i < 2; i++) expect(edgeplan(['reject', idOf(awaitingApproval())]).code).toBe(0);
    const page = JSON.parse(edgeplan(['runs', '--status', 'cancelled', '--limit', '2', '--json']).out) as {
      runs: { run_id: string; status: string }[];
    };
    expect(page.runs.map((r) => r.run_id)).toContain(cancelled);
    expect(page.runs.every((r) => r.status === 'cancelled')).toBe(true);
    const shown = edgeplan(['runs', '--status', 'cancelled', '--limit', '2']);
    expect(shown.out).toContain(cancelled);
    expect(shown.out).not.toContain('No runs with status cancelled');
  });

  it('approves with an edit: waits (exit 3), then runs the edited plan', () => {
    const started = awaitingApproval();
    const created = JSON.parse(started.out) as { run_id: string; status: string };
    expect(created.status).toBe('awaiting_approval');
    // A changed plan the API refuses: its findings at their lines in the file, as `run` shows them
    // (they came as the API's message, without a line), and the run still waits.
    const broken = {
      ...parallelPlan,
      steps: parallelPlan.steps.map((s) => (s.id === 'c' ? { ...s, dependencies: ['a', 'zzz'] } : s)),
    };
    const badEdit = edgeplan([
      'approve',
      created.run_id,
      '--edit',
      file('bad-edit.json', JSON.stringify(broken, null, 2)),
    ]);
    expect(badEdit.code).toBe(1);
    expect(badEdit.err).toMatch(/^edgeplan: invalid_plan: 1 finding in bad-edit\.json\n/);
    expect(badEdit.err).toMatch(/^ {2}bad-edit\.json:\d+: error unknown_dependency \[c\]: .*zzz/m);
    expect(JSON.parse(edgeplan(['runs', 'show', created.run_id, '--json']).out)).toMatchObject({
      status: 'awaiting_approval',
    });
    const edits = file('edits.json', JSON.stringify({ edits: [{ op: 'remove_step', step_id: 'c' }] }));
    const approved = edgeplan(['approve', created.run_id, '--edit', edits, '--json']);
    expect(approved.code).toBe(0);
    expect((JSON.parse(approved.out) as { run_id: string }).run_id).toBe(created.run_id);
    const followed = edgeplan(['events', created.run_id, '--follow']);
    expect(followed.code).toBe(0);
    const shown = JSON.parse(edgeplan(['runs', 'show', created.run_id, '--json']).out) as {
      status: string;
      steps: Record<string, unknown>;
    };
    expect(shown.status).toBe('completed');
    expect(Object.keys(shown.steps).sort()).toEqual(['a', 'b']);
    const diff = JSON.parse(edgeplan(['plans', created.run_id, '--diff', '1', '2', '--json']).out) as {
      removed: string[];
    };
    expect(diff.removed).toEqual(['c']);
  });

  it('prints JSON that parses, and exits 1 on a failed run with --json', () => {
    const list = JSON.parse(edgeplan(['runs', '--json']).out) as { runs: { run_id: string }[] };
    expect(list.runs.length).toBeGreaterThanOrEqual(2);
    // A page says how to read the next one.
    const first = edgeplan(['runs', '--limit', '1']).out;
    const more = /^More: edgeplan runs --limit 1 --cursor (\S+)$/m.exec(first);
    expect(more).not.toBeNull();
    const next = edgeplan(['runs', '--limit', '1', '--cursor', more![1]!]).out;
    expect(next).toContain(list.runs[1]!.run_id);
    expect(first).toContain(list.runs[0]!.run_id);
    // With no LLM configured no run is ever left planning: an empty filter says what it filtered.
    expect(edgeplan(['runs', '--status', 'planning']).out.trim()).toBe('No runs with status planning.');
    const tools = JSON.parse(edgeplan(['tools', '--json']).out) as {
      tools: { name: string }[];
      unavailable: { server: string; name?: string; reason: string }[];
    };
    expect(tools.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['demo.echo', 'mcp.team.shout']));
    // The tool the team's server lists under a name MCP does not allow: not callable, and why.
    expect(tools.unavailable).toEqual([
      expect.objectContaining({
        server: 'team',
        name: 'mcp.team.shout loudly',
        reason: expect.stringContaining('rename'),
      }),
    ]);
    const table = edgeplan(['tools']).out;
    expect(table).toMatch(/^mcp\.team\.shout\b/m);
    expect(table).toMatch(
      /^Unavailable:\nSERVER +TOOL +WHY\nteam +mcp\.team\.shout loudly +.*rename the tool on the server/m,
    );
    const failing = file(
      'fail.json',
      JSON.stringify({
        goal: 'f',
        steps: [{ id: 'x', action: 'demo.flaky', parameters: { fail_times: 9 } }],
      }),
    );
    const r = edgeplan(['run', failing, '--watch', '--json', '--config', 'retry_failed_steps=0']);
    expect(r.code).toBe(1);
    const lines = r.out.trim().split('\n');
    // NDJSON: every line parses; the events, then the run as it ended.
    const parsed = lines.map((l) => JSON.parse(l) as { event_type?: string; status?: string });
    expect(parsed[0]!.event_type).toBe('RunCreated');
    expect(parsed.at(-2)!.event_type).toBe('RunTerminated');
    expect(parsed.at(-1)!.status).toBe('failed');
  });

  it('exits 2 on usage errors and 1 with the API’s code on a refusal', () => {
    // --help says what the codes mean, for whoever writes a script around the command.
    const help = edgeplan(['--help']);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(
      /^Exit codes: 0 completed \(or done\), 1 failed, invalid or refused, 2 usage, 3 the run waits for$/m,
    );
    // `runs` lists with `ls`'s options: its help names them.
    expect(edgeplan(['runs', '--help']).out).toMatch(
      /`edgeplan runs ls \[options\]`: --status, --limit, --cursor/,
    );
    expect(edgeplan(['frobnicate']).code).toBe(2);
    // A workflow piped in without --format: read as JSON, and refused saying how to send it.
    const piped = spawnSync(process.execPath, [cli, 'run', '-', '--no-watch'], {
      cwd: dir,
      env: { ...process.env, EDGEPLAN_URL: server.base },
      input: 'nodes:\n  - name: a\n    uses: demo.echo\n',
      encoding: 'utf8',
    });
    expect({ code: piped.status, err: piped.stderr }).toEqual({
      code: 2,
      err: expect.stringMatching(
        /^edgeplan: standard input is not JSON \(.*\): .*--format tea-yaml, --format llmcompiler\)$/m,
      ),
    });
    expect(edgeplan(['run']).code).toBe(2);
    expect(edgeplan(['run', 'missing.json']).err).toMatch(/Cannot read missing\.json/);
    // A file saved in another encoding: refused, not sent with its "é" turned into U+FFFD.
    writeFileSync(join(dir, 'latin1.json'), Buffer.from('{"goal":"caf\xe9","steps":[]}', 'latin1'));
    const latin1 = edgeplan(['validate', 'latin1.json']);
    expect(latin1.code).toBe(2);
    expect(latin1.err).toMatch(/latin1\.json is not UTF-8 \(byte 12 cannot start or continue a character\)/);
    const missing = edgeplan(['cancel', 'run_doesnotexist']);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/not_found/);
    expect(edgeplan(['runs'], { EDGEPLAN_URL: 'http://127.0.0.1:9' }).err).toMatch(
      /unreachable: Cannot reach/,
    );
    // A malformed flag value is the command line's mistake (2), whichever command it is given to.
    const bad: [string[], Record<string, string>, RegExp][] = [
      [['--url', 'notaurl', 'runs'], {}, /--url must be an http\(s\) URL/],
      [['runs'], { EDGEPLAN_URL: 'ftp://x' }, /EDGEPLAN_URL must be an http\(s\) URL/],
      [['runs', '--limit', 'abc'], {}, /--limit takes a whole number, 1–200 \(got "abc"\)/],
      [['runs', '--limit', '0'], {}, /--limit takes a whole number/],
      [['events', 'run_x', '--after', '-1'], {}, /--after takes a whole number, 0 or more/],
      [['plans', 'run_x', '--diff', '1', 'b'], {}, /--diff takes a whole number/],
      [['plans', 'run_x', '--show', '1.5'], {}, /--show takes a whole number/],
    ];
    for (const [args, env, message] of bad) {
      const r = edgeplan(args, env);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(message);
    }
  });

  it('deletes an ended run (exit 0), refuses one still going (exit 1, how to cancel), 404 after (exit 1)', () => {
    const done = edgeplan(['run', file('del.json', JSON.stringify(parallelPlan)), '--watch']);
    expect(done.code).toBe(0);
    const id = /^run (run_\w+)/.exec(done.out)![1]!;
    const deleted = edgeplan(['delete', id]);
    expect([deleted.code, deleted.out, deleted.err]).toEqual([0, `Deleted ${id}\n`, '']);
    expect(edgeplan(['runs', 'show', id]).err).toMatch(/not_found/);
    const again = edgeplan(['delete', id, '--json']);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.out)).toMatchObject({ error: { code: 'not_found' } });
    // A run still going: refused, saying how to cancel it; deleted once cancelled (--json: the answer).
    const sleep = { steps: [{ id: 'w', action: 'demo.sleep', parameters: { ms: 20_000 } }] };
    const started = edgeplan(['run', file('del-long.json', JSON.stringify(sleep)), '--json']);
    const live = (JSON.parse(started.out) as { run_id: string }).run_id;
    const refused = edgeplan(['delete', live]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('conflict');
    expect(refused.err).toContain(`Cancel it first with: edgeplan cancel ${live}, then delete it.`);
    expect(edgeplan(['cancel', live]).code).toBe(0);
    const ok = edgeplan(['delete', live, '--json']);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.out)).toEqual({ run_id: live, child_runs: [] });
    expect(edgeplan(['delete']).code).toBe(2);
    // --force sends ?force=true: on a run this release can read, a plain deletion.
    const other = edgeplan(['run', file('del-force.json', JSON.stringify(parallelPlan)), '--watch']);
    const otherId = /^run (run_\w+)/.exec(other.out)![1]!;
    const forced = edgeplan(['delete', otherId, '--force']);
    expect([forced.code, forced.out, forced.err]).toEqual([0, `Deleted ${otherId}\n`, '']);
    expect(edgeplan(['delete', otherId, '--force']).err).toMatch(/not_found/);
  });

  it('Ctrl-C detaches (130) naming the run it was following, also one started from a file', async () => {
    const plan = file(
      'long.json',
      JSON.stringify({ steps: [{ id: 'w', action: 'demo.sleep', parameters: { ms: 20_000 } }] }),
    );
    const cmd = launch(['run', plan, '--watch'], server.base);
    await cmd.until(/ToolInvoked/);
    const id = /run (run_\w+)/.exec(cmd.out())?.[1];
    expect(id).toMatch(/^run_/);
    cmd.child.kill('SIGINT');
    expect(await cmd.exited).toBe(130);
    expect(cmd.err()).toContain(`Cancel it with: edgeplan cancel ${id}`);
    expect(cmd.err()).not.toContain('<run id>');
    expect(edgeplan(['cancel', id!]).code).toBe(0);
  });

  it('answers a run awaiting input: the piped watch says how, `input` answers, --action answers a failed step', async () => {
    const plan = file(
      'ask.json',
      JSON.stringify({ steps: [{ id: 'q', action: 'human.input', parameters: { prompt: 'Your name?' } }] }),
    );
    const cmd = launch(['run', plan, '--watch'], server.base);
    await cmd.until(/waits for input/, 'err');
    const id = /run (run_\w+)/.exec(cmd.out())?.[1];
    // The hint names the question too: an answer typed late, after the step asked again, is refused.
    const asked = lastQuestion(id!);
    expect(asked).toBeGreaterThan(0);
    // And by when, and what happens then (a retry is left: asked again).
    const due = lastQuestionDue(id!);
    expect(due).toMatchObject({ if_unanswered: 'asked_again', retries_left: 1 });
    expect(cmd.err()).toBe(
      `${id} waits for input (Your name?). Answer by ${due.at}: if nobody does, the step is asked again (1 retry left). ` +
        `Answer with: edgeplan input ${id} <answer> --step q --question ${asked}\n`,
    );
    expect(edgeplan(['input', id!]).code).toBe(2);
    expect(edgeplan(['input', id!, 'Ada', '--action', 'skip']).code).toBe(2);
    // A question with a schema: `show` says what fits, so the first answer need not be refused.
    const schema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
    const typed = file(
      'ask-typed.json',
      JSON.stringify({
        steps: [{ id: 't', action: 'human.input', parameters: { prompt: 'Who?', schema }, retries: 0 }],
      }),
    );
    const typedRun = launch(['run', typed, '--watch'], server.base);
    await typedRun.until(/waits for input/, 'err');
    const typedId = /run (run_\w+)/.exec(typedRun.out())?.[1];
    // No retry: unanswered, the step fails.
    const typedDue = lastQuestionDue(typedId!);
    expect(typedRun.err()).toBe(
      `${typedId} waits for input (Who?). Answer by ${typedDue.at}: if nobody does, the step fails. ` +
        `Answer with: edgeplan input ${typedId} <answer> --step t --question ${lastQuestion(typedId!)} ` +
        `(JSON that fits its schema ${JSON.stringify(schema)})\n`,
    );
    expect(edgeplan(['input', typedId!, '{"name": "Ada"}', '--step', 't']).code).toBe(0);
    expect(await typedRun.exited).toBe(0);
    // A step that asks nothing: refused, not taken as new information.
    const wrong = edgeplan(['input', id!, 'Ada', '--step', 'nope']);
    expect(wrong.code).toBe(1);
    expect(wrong.err).toContain('has no step "nope"');
    // --question names the question (its InputRequested's seq): another than the one asked is refused.
    expect(edgeplan(['input', id!, 'Ada', '--question', '3']).code).toBe(2);
    expect(edgeplan(['input', id!, 'Ada', '--step', 'q', '--question', 'three']).code).toBe(2);
    const closed = edgeplan(['input', id!, 'Ada', '--step', 'q', '--question', '999']);
    expect(closed.code).toBe(1);
    expect(closed.err).toMatch(
      /Question 999 of run \S+ \(step "q"\) has not been asked; run \S+ asks question \d+ \(step "q"\) now/,
    );
    const answered = edgeplan(['input', id!, 'Ada', '--step', 'q']);
    expect(answered.code).toBe(0);
    expect(answered.out).toMatch(new RegExp(`^${id}  `));
    expect(await cmd.exited).toBe(0);
    expect(cmd.out()).toMatch(/RunTerminated\s+completed/);
    const shown = JSON.parse(edgeplan(['runs', 'show', id!, '--json']).out) as { final_output: unknown };
    expect(shown.final_output).toBe('Ada');

    // ask_user about a failed step: --action retry runs it again (demo.flaky fails once).
    const flaky = file(
      'flaky.json',
      JSON.stringify({
        steps: [{ id: 'f', action: 'demo.flaky', parameters: { fail_times: 1, key: `k${Date.now()}` } }],
      }),
    );
    const config = ['--config', 'on_step_failure=replan', '--config', 'revision_strategy=ask_user'];
    const started = edgeplan([
      'run',
      flaky,
      '--no-watch',
      '--json',
      '--config',
      'retry_failed_steps=0',
      ...config,
    ]);
    const runId = (JSON.parse(started.out) as { run_id: string }).run_id;
    let status = '';
    for (let i = 0; i < 100 && status !== 'awaiting_input'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      status = (JSON.parse(edgeplan(['runs', 'show', runId, '--json']).out) as { status: string }).status;
    }
    expect(status).toBe('awaiting_input');
    // The piped watch names the actions: `input <id> skip` would be an answer that retries.
    const watching = launch(['watch', runId], server.base);
    await watching.until(/waits for input/, 'err');
    expect(watching.err()).toContain(
      `Answer with: edgeplan input ${runId} --action retry|skip|replan|abort --step f --question ${lastQuestion(runId)}\n`,
    );
    expect(edgeplan(['input', runId, '--action', 'again']).err).toMatch(
      /--action must be one of retry, skip, abort, replan/,
    );
    // A bare "skip" would be an answer, which retries: refused, naming --action.
    const bare = edgeplan(['input', runId, 'skip', '--step', 'f']);
    expect([bare.code, bare.err]).toEqual([
      2,
      `edgeplan: ${runId} asks what to do about failed step "f": answer with --action skip (a plain "skip" is an answer, which retries the step). To send the text itself, give it as JSON: '"skip"'\n`,
    ]);
    expect(edgeplan(['input', runId, '--action', 'retry']).code).toBe(0);
    expect(await watching.exited).toBe(0);
    expect(edgeplan(['events', runId, '--follow']).code).toBe(0);
  });

  it('on a terminal, asks what to do about a failed step with the actions, not a text answer (tmux)', async () => {
    file(
      'flaky-tty.json',
      JSON.stringify({
        steps: [
          { id: 'f', action: 'demo.flaky', parameters: { fail_times: 9, key: `t${Date.now()}` } },
          { id: 'g', action: 'demo.echo', parameters: { after: 'f' } },
        ],
      }),
    );
    // tmux starts the command in its own directory: the file by its whole path.
    const flaky = join(dir, 'flaky-tty.json');
    const config =
      '--config on_step_failure=replan --config revision_strategy=ask_user --config retry_failed_steps=0';
    const command = `EDGEPLAN_URL=${server.base} ${process.execPath} ${cli} run ${flaky} ${config}; echo EXIT=$?; sleep 20`;
    const terminal = openTerminal('edgeplan-cli-ask', { cols: 110, rows: 24 }, command);
    try {
      let screen = await terminal.until(/Skip step/);
      expect(screen).toMatch(/Retry step[\s\S]*Skip step[\s\S]*Replan[\s\S]*Abort run[\s\S]*Decide later/);
      // Down once: Skip step.
      terminal.keys('Down', 'Enter');
      screen = await terminal.until(/EXIT=/);
      expect(screen).toMatch(/EXIT=0/);
      const id = /edgeplan (run_\w+)/.exec(screen)?.[1];
      const run = JSON.parse(edgeplan(['runs', 'show', id!, '--json']).out) as {
        status: string;
        steps: Record<string, { status: string; attempts: number }>;
      };
      expect([run.status, run.steps.f?.status, run.steps.f?.attempts, run.steps.g?.status]).toEqual([
        'completed',
        'skipped',
        1,
        'completed',
      ]);
    } finally {
      terminal.close();
    }
  }, 90_000);

  it('watch <id> follows a run started elsewhere: waits out its approval, ends with its exit code', async () => {
    const plan = file('held.json', JSON.stringify(parallelPlan));
    const started = edgeplan(['run', plan, '--no-watch', '--config', 'require_plan_approval=true']);
    expect(started.code).toBe(3);
    const id = /^(run_\w+)\s+awaiting_approval$/m.exec(started.out)?.[1];
    expect(id).toMatch(/^run_/);
    const cmd = launch(['watch', id!], server.base);
    await cmd.until(/waits for approval/, 'err');
    expect(cmd.err()).toContain(`Decide with: edgeplan approve ${id}`);
    expect(edgeplan(['approve', id!]).code).toBe(0);
    expect(await cmd.exited).toBe(0);
    expect(cmd.out()).toMatch(/ApprovalGranted[\s\S]*RunTerminated\s+completed/);
    // --json: the events, then the run as it ended.
    const json = edgeplan(['watch', id!, '--json']);
    expect(json.code).toBe(0);
    const last = JSON.parse(json.out.trim().split('\n').at(-1)!) as { run_id: string; status: string };
    expect(last).toMatchObject({ run_id: id, status: 'completed' });
    const missing = edgeplan(['watch', 'run_nope']);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/not_found/);
  });

  it('shows a child run’s parent: runs show, watch, the PARENT column, --parent and --top-level', () => {
    const plan = {
      goal: 'a parent',
      steps: [
        { id: 'prepare', action: 'demo.echo', parameters: { x: 1 } },
        {
          id: 'research',
          action: 'demo.echo',
          dependencies: ['prepare'],
          subplan: { goal: 'the child', steps: [{ id: 'x', action: 'demo.echo', parameters: {} }] },
        },
      ],
    };
    const started = edgeplan(['run', file('parent.json', JSON.stringify(plan)), '--watch']);
    expect(started.code).toBe(0);
    const parent = /^run (run_\w+)$/m.exec(started.out)?.[1];
    expect(parent).toMatch(/^run_/);
    const shown = JSON.parse(edgeplan(['runs', 'show', parent!, '--json']).out) as {
      parent_run_id: string | null;
      step_results: { research: { run_id: string } };
    };
    expect(shown.parent_run_id).toBeNull();
    const child = shown.step_results.research.run_id;

    const show = edgeplan(['runs', 'show', child]);
    expect(show.code).toBe(0);
    expect(show.out.split('\n')[1]).toBe(`child of ${parent} (step research)`);
    expect(edgeplan(['runs', 'show', parent!]).out).not.toMatch(/child of/);

    // Piped: the parent on stderr, stdout one line per event as before.
    const watch = edgeplan(['watch', child]);
    expect(watch.code).toBe(0);
    expect(watch.err).toBe(`${child}: child of ${parent} (step research)\n`);
    expect(
      watch.out
        .trim()
        .split('\n')
        .every((l) => /^\s*\d+ /.test(l)),
    ).toBe(true);
    expect(edgeplan(['watch', parent!]).err).toBe('');

    // The child's index row is written when it ends (the parent's step waited for that).
    const children = edgeplan(['runs', '--parent', parent!]);
    expect(children.code).toBe(0);
    const rows = children.out.trim().split('\n');
    expect(rows[0]).toMatch(/^RUN\s+STATUS\s+STEPS\s+CREATED \(UTC\)\s+PARENT\s+GOAL$/);
    expect(rows.slice(1).map((r) => r.split(/\s+/).slice(0, 2))).toEqual([[child, 'completed']]);
    expect(rows[1]).toContain(parent!);
    const top = edgeplan(['runs', '--top-level', '--limit', '200']).out;
    expect([top.includes(parent!), top.includes(child)]).toEqual([true, false]);
    expect(top.split('\n')[0]).not.toMatch(/PARENT/);
    const all = edgeplan(['runs', '--limit', '200']).out;
    expect([all.includes(parent!), all.includes(child)]).toEqual([true, true]);
    expect(edgeplan(['runs', '--parent', child]).out.trim()).toBe(`No child runs of ${child}.`);
    const both = edgeplan(['runs', '--parent', parent!, '--top-level']);
    expect(both.code).toBe(2);
    expect(both.err).toMatch(/--parent and --top-level exclude each other/);
  });

  it('ends a watch resumed after the run’s last event at once, with the run’s exit code', () => {
    const failing = file(
      'fail-once.json',
      JSON.stringify({ steps: [{ id: 'x', action: 'demo.flaky', parameters: { fail_times: 9 } }] }),
    );
    const run = edgeplan(['run', failing, '--watch', '--json', '--config', 'retry_failed_steps=0']);
    expect(run.code).toBe(1);
    const lines = run.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { seq?: number; run_id?: string });
    const last = lines.at(-2)!.seq!;
    const id = lines.at(-1)!.run_id!;
    // It waited for an event after the last one for ever.
    for (const after of [last, last + 40]) {
      const r = edgeplan(['events', id, '--follow', '--after', String(after)]);
      expect(r.code).toBe(1);
      expect(r.out).toBe('');
    }
    const before = edgeplan(['events', id, '--follow', '--after', String(last - 1)]);
    expect(before.code).toBe(1);
    expect(before.out).toMatch(/^\s*\d+ .*RunTerminated\s+failed/);
  });

  it('--json: every error is one line of JSON on stdout, usage errors too', () => {
    const cases: [string[], string, number][] = [
      [['--json', 'bogus'], 'usage', 2],
      [['--json', 'runs', 'show', ''], 'usage', 2],
      [['--json', 'validate', 'missing.json'], 'usage', 2],
      [['--json', 'runs', 'show', 'run_doesnotexist'], 'not_found', 1],
      [['--json', '--url', 'http://127.0.0.1:9', 'runs'], 'unreachable', 1],
    ];
    for (const [args, code, exit] of cases) {
      const r = edgeplan(args);
      expect(r.code).toBe(exit);
      expect(r.out.trim().split('\n')).toHaveLength(1);
      expect((JSON.parse(r.out) as { error: { code: string } }).error.code).toBe(code);
    }
  });

  it('run: an invalid plan file’s findings at their lines, as validate shows them', () => {
    const bad = JSON.stringify(
      {
        goal: 'g',
        steps: [
          { id: 'a', action: 'demo.echo', parameters: { id: 'b' } },
          { id: 'b', action: 'demo.echo', dependencies: ['zzz'] },
        ],
      },
      null,
      2,
    );
    const r = edgeplan(['run', file('bad-run.json', bad), '--no-watch']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^edgeplan: invalid_plan: 1 finding in bad-run\.json$/m);
    // Line 15 is step b's dependency "zzz" (a parameter named "id" on line 8 no longer misleads it).
    expect(r.err).toMatch(/^ {2}bad-run\.json:15: error unknown_dependency \[b\]: .*zzz/m);
    expect(edgeplan(['validate', 'bad-run.json']).out).toMatch(
      /^bad-run\.json:15: error unknown_dependency/m,
    );
  });

  it('Ctrl-C while a request waits for an answer stops it (130) without claiming a run goes on', async () => {
    // A server that takes the request and never answers.
    let asked!: () => void;
    const waiting = new Promise<void>((r) => (asked = r));
    const silent = createServer(() => asked());
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const { port } = silent.address() as AddressInfo;
    try {
      const cmd = launch(['tools'], `http://127.0.0.1:${port}`);
      // Interrupted once its request waits (a second's sleep: a slow start was interrupted before it).
      await waiting;
      cmd.child.kill('SIGINT');
      expect(await cmd.exited).toBe(130);
      expect(cmd.err()).toBe('\nInterrupted.\n');
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it('run gives up on a server that takes the create and never answers after --timeout, naming the key to send again', async () => {
    // A server that takes every request and never answers: each create attempt carries one key.
    const keys: string[] = [];
    const silent = createServer((req) => void keys.push(String(req.headers['idempotency-key'])));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    try {
      const plan = file('silent.json', JSON.stringify(parallelPlan));
      const cmd = launch(['run', plan, '--no-watch', '--timeout', '2'], url);
      expect(await cmd.exited).toBe(1);
      expect(keys.length).toBeGreaterThan(0);
      expect(new Set(keys).size).toBe(1);
      const key = keys[0]!;
      expect(cmd.err()).toMatch(
        new RegExp(
          `^edgeplan: timeout: No answer to creating the run within 2 s \\(\\d attempts?; last: No answer from ${url} to POST /v1/runs within [\\d.]+ s\\)\\. It may have been created: send the request again with Idempotency-Key ${key} to get that run, not a second one\\.\n`,
        ),
      );
      expect(cmd.err()).toContain(
        `If it was created, run the same command with --idempotency-key ${key} to get that run, not a second one.`,
      );
      expect(cmd.out()).toBe('');
      // --json: the error as one line of JSON, the key in its details.
      const json = launch(['run', plan, '--no-watch', '--timeout', '1', '--json'], url);
      expect(await json.exited).toBe(1);
      expect(JSON.parse(json.out())).toMatchObject({
        error: { code: 'timeout', details: { idempotency_key: expect.any(String) } },
      });
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it('a watch waits out a restart of the server and follows the run to its end', async () => {
    // Its own server, killed (SIGKILL, the whole process group) mid-run and started on the same state.
    const persist = migratedState('cli-restart') as string;
    let own = (await startDevServer({ name: 'cli-restart', persist })) as Server & {
      port: number;
      kill(): Promise<void>;
    };
    try {
      const plan = file(
        'restart.json',
        JSON.stringify({
          steps: [
            { id: 'w', action: 'demo.sleep', parameters: { ms: 1500, value: 'slept' } },
            { id: 'e', action: 'demo.echo', parameters: { v: '{{ steps.w.output }}' }, dependencies: ['w'] },
          ],
        }),
      );
      const cmd = launch(['run', plan, '--watch'], own.base);
      await cmd.until(/ToolInvoked\s+w/);
      await own.kill();
      own = await startDevServer({ name: 'cli-restart', persist, port: own.port });
      // It exited 1, "unreachable", the moment the server went away.
      expect(await cmd.exited).toBe(0);
      expect(cmd.err()).toMatch(/^Lost the connection to the server; run_\w+ goes on there\. Reconnecting/);
      expect(cmd.err()).toMatch(/\nReconnected; following run_\w+ again\.\n$/);
      const seqs = cmd
        .out()
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => Number(l.trim().split(/\s+/)[0]));
      expect(seqs).toEqual(seqs.map((_, i) => i + 1));
      expect(cmd.out()).toMatch(/RunTerminated\s+completed/);
    } finally {
      await own.stop();
      rmSync(persist, { recursive: true, force: true });
    }
  }, 90_000);

  it('the live view says it lost the server and got it back, and leaves one view after a restart (tmux)', async () => {
    // The notes went to stderr between two frames: the next frame erased them as lines of its own
    // (the operator never saw them) and a stale header of the old frame stayed above the view.
    const persist = migratedState('cli-restart-live') as string;
    const pinned = pinnedPort();
    let own = (await startDevServer({
      name: 'cli-restart-live',
      persist,
      port: pinned === undefined ? undefined : pinned + 2,
    })) as Server & { port: number; kill(): Promise<void> };
    let terminal: Terminal | undefined;
    try {
      const plan = file(
        'restart-live.json',
        JSON.stringify({
          steps: [
            { id: 'w', action: 'demo.sleep', parameters: { ms: 3000 } },
            { id: 'e', action: 'demo.echo', parameters: { v: 'after' }, dependencies: ['w'] },
          ],
        }),
      );
      const command = `NO_COLOR=1 EDGEPLAN_URL=${own.base} ${process.execPath} ${cli} run ${join(dir, plan)}; echo EXIT=$?; sleep 60`;
      terminal = openTerminal('edgeplan-cli-restart', { cols: 110, rows: 30 }, command);
      await terminal.until(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] w\s/);
      await own.kill();
      await terminal.until(/Lost the connection/);
      own = await startDevServer({ name: 'cli-restart-live', persist, port: own.port });
      const shown = await terminal.until(/EXIT=/);
      expect(shown).toMatch(/EXIT=0/);
      expect(shown).toMatch(/^Lost the connection to the server; run_\w+ goes on there\. Reconnecting/m);
      expect(shown).toMatch(/^Reconnected; following run_\w+ again\.$/m);
      expect(shown).toMatch(/edgeplan run_\w+ {2}completed/);
      expect(shown.match(/edgeplan run_/g)).toHaveLength(1);
    } finally {
      terminal?.close();
      await own.stop();
      rmSync(persist, { recursive: true, force: true });
    }
  }, 90_000);

  it('deploys a team’s own Worker from its directory: creates what its wrangler.toml names, migrates, deploys', () => {
    // The example project's wrangler.toml, against the stub wrangler first on PATH (an empty account).
    const project = mkdtempSync(join(tmpdir(), 'edgeplan-own-worker-'));
    try {
      copyFileSync(join(root, 'examples/custom-worker/wrangler.toml'), join(project, 'wrangler.toml'));
      writeFileSync(join(project, 'state.json'), JSON.stringify({ d1: [], kv: [], queues: [] }));
      const env = {
        ...process.env,
        PATH: `${join(root, 'test/fixtures/wrangler-stub')}:${process.env.PATH}`,
        STUB_LOG: join(project, 'log.jsonl'),
        STUB_STATE: join(project, 'state.json'),
      };
      const r = spawnSync(process.execPath, [cli, 'deploy', '--keep-vars'], {
        cwd: project,
        env,
        encoding: 'utf8',
      });
      expect(r.status).toBe(0);
      const commands = readFileSync(join(project, 'log.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as string[]).join(' '));
      expect(commands.filter((c) => / create /.test(c))).toEqual([
        'd1 create edgeplan-custom-worker --update-config=false',
        'kv namespace create edgeplan-custom-worker-kv --update-config=false',
        'queues create custom-worker-steps',
        'queues create custom-worker-steps-dlq',
      ]);
      expect(commands.slice(-2)).toEqual([
        'd1 migrations apply DB --remote --config wrangler.deploy.toml',
        'deploy --config wrangler.deploy.toml --keep-vars',
      ]);
      expect(readFileSync(join(project, 'wrangler.deploy.toml'), 'utf8')).not.toContain(
        '"00000000-0000-0000-0000-000000000000"',
      );
      // Not a Worker's project: said so, nothing run.
      const elsewhere = spawnSync(process.execPath, [cli, 'deploy'], { cwd: dir, env, encoding: 'utf8' });
      expect(elsewhere.status).toBe(1);
      expect(elsewhere.stderr).toMatch(/no wrangler\.toml in .*: run this in your Worker's project/);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  }, 60_000);

  it('draws the live view in a terminal (tmux): symbols, the critical path, the output', async () => {
    // Sleeps long enough that frames captured every 100 ms see them running, however quickly the run
    // is created (with 200 and 300 ms, a fast start could leave no frame of a running step).
    const slow = {
      ...parallelPlan,
      steps: parallelPlan.steps.map((s) =>
        s.action === 'demo.sleep' ? { ...s, parameters: { ms: 1_000 } } : s,
      ),
    };
    file('par-slow.json', JSON.stringify(slow));
    const plan = join(dir, 'par-slow.json');
    const command = `EDGEPLAN_URL=${server.base} ${process.execPath} ${cli} run ${plan} --config execution_mode=parallel; echo EXIT=$?; sleep 20`;
    const terminal = openTerminal('edgeplan-cli', { cols: 110, rows: 20 }, command);
    try {
      const frames = new Set<string>();
      const screen = await terminal.until(/EXIT=/, { frame: (f) => frames.add(f) });
      expect(screen).toMatch(/EXIT=0/);
      expect(screen).toMatch(/edgeplan run_\w+ {2}completed/);
      expect(screen).toMatch(/✔ a\s+demo\.sleep/);
      expect(screen).toMatch(/✔ c\s+demo\.echo/);
      expect(screen).toMatch(/critical path ◆/);
      expect(screen).toMatch(/output: "joined"|output: \{"value":"joined"\}/);
      // Drawn in place: the final screen holds one view, not one per redraw.
      expect(screen.match(/edgeplan run_/g)).toHaveLength(1);
      // It was live: some frame showed a step running (a spinner) before the end.
      expect([...frames].some((f) => /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] [ab]\s/.test(f))).toBe(true);
    } finally {
      terminal.close();
    }
  }, 90_000);

  it('leaves the whole view on a terminal shorter than the plan: the run id, every step, the output', async () => {
    // Each frame is cut to the terminal's 12 rows; the view that stayed was the last frame, cut: the
    // run's id, status and first steps were gone, scrollback too.
    const steps = Array.from({ length: 25 }, (_, i) => ({
      id: `s${i}`,
      action: 'demo.echo',
      parameters: { i },
      dependencies: i ? [`s${i - 1}`] : [],
    }));
    file('tall.json', JSON.stringify({ goal: 'tall', steps }));
    const plan = join(dir, 'tall.json');
    const command = `EDGEPLAN_URL=${server.base} ${process.execPath} ${cli} run ${plan} --config max_steps=30; echo EXIT=$?; sleep 20`;
    const terminal = openTerminal('edgeplan-cli-tall', { cols: 110, rows: 12 }, command);
    try {
      const screen = await terminal.until(/EXIT=/, { history: true });
      expect(screen).toMatch(/EXIT=0/);
      expect(screen.match(/edgeplan run_\w+ {2}completed/g)).toHaveLength(1);
      expect(steps.filter((s) => !new RegExp(`✔ ${s.id}\\s+demo\\.echo`).test(screen))).toEqual([]);
      expect(screen).toMatch(/25\/25 steps done/);
      expect(screen).toMatch(/output: \{"i":24\}/);
    } finally {
      terminal.close();
    }
  }, 90_000);

  it('draws the view on a terminal that reports no size (0×0, as `script` gives without one)', () => {
    // log-update drew nothing at 0 rows: the command exited 0 having printed no step, no output.
    const r = spawnSync(
      'script',
      [
        '-qec',
        `${process.execPath} ${cli} run ${join(dir, file('par0.json', JSON.stringify(parallelPlan)))}`,
        '/dev/null',
      ],
      {
        cwd: dir,
        env: { ...process.env, EDGEPLAN_URL: server.base, NO_COLOR: '1' },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    expect(r.status).toBe(0);
    // eslint-disable-next-line no-control-regex -- the terminal's escape sequences
    const shown = r.stdout.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
    expect(shown).toMatch(/edgeplan run_\w+ {2}completed/);
    expect(shown).toMatch(/✔ c\s+demo\.echo/);
    expect(shown).toMatch(/output: "joined"|output: \{"value":"joined"\}/);
    // Not wrapped a character a line, as at 0 columns.
    expect(shown).toMatch(/3\/3 steps done/);
  });

  it('writes plain event lines, no redraws, on a terminal that cannot move its cursor (TERM=dumb)', () => {
    // Emacs' shell and some CI consoles are terminals with TERM=dumb: log-update's cursor movements
    // piled up there as escape codes, a frame a line.
    const r = spawnSync(
      'script',
      [
        '-qec',
        `${process.execPath} ${cli} run ${join(dir, file('dumb.json', JSON.stringify(parallelPlan)))}`,
        '/dev/null',
      ],
      {
        cwd: dir,
        env: { ...process.env, EDGEPLAN_URL: server.base, NO_COLOR: '1', TERM: 'dumb' },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    expect(r.status).toBe(0);
    expect(r.stdout).not.toContain('\x1b');
    const lines = r.stdout.replace(/\r/g, '').trim().split('\n');
    expect(lines[0]).toMatch(/^run run_\w+$/);
    expect(lines.at(-1)).toMatch(/^\s*\d+ .*RunTerminated\s+completed/);
  });
});

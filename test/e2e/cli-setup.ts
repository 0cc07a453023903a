/**
 * What a CLI test file that plans with the scripted LLM sets up, as its vitest hooks: the `edgeplan`
 * command built into a throwaway directory, the scripted LLM on loopback, and a `wrangler dev` whose
 * planner it answers; all stopped (and the directory removed) after the file.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { plannerVars, startScriptedLlm } from './scripted-llm-server';
// @ts-expect-error -- a plain .mjs script without declarations
import { startDevServer } from '../../scripts/dev-server.mjs';
import { pinnedPort } from './pinned-port';

type Json = Record<string, unknown>;
type Scripted = Awaited<ReturnType<typeof startScriptedLlm>>;
export type CliResult = { code: number | null; out: string; err: string };

/** What a terminal showed, with the cursor movements and line ends of the redraws taken out. */
// eslint-disable-next-line no-control-regex -- the terminal's escape sequences are what it removes
const plain = (s: string) => s.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');

/**
 * @param vars more `wrangler dev` arguments (`--var NAME:value`), read when the server starts: after
 * the file's own `beforeAll` hooks registered before this call (a tool server's port).
 */
export function cliSetup(name: string, vars: () => string[] = () => []) {
  const root = process.cwd();
  const dir = mkdtempSync(join(tmpdir(), `edgeplan-${name}-`));
  const cli = join(dir, 'edgeplan.mjs');
  let server: { base: string; stop(): Promise<void> } | undefined;
  let scripted: Scripted | undefined;

  beforeAll(async () => {
    execFileSync(process.execPath, [join(root, 'scripts/build-cli.mjs'), '--out', cli], { cwd: root });
    scripted = await startScriptedLlm();
    server = (await startDevServer({
      name: `${name}-e2e`,
      extraArgs: [...plannerVars(scripted.url), ...vars()],
      // EDGEPLAN_E2E_PORT pins the port (a machine that gives each runner a range); else a free one.
      port: pinnedPort(),
    })) as {
      base: string;
      stop(): Promise<void>;
    };
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await scripted?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const base = () => server!.base;
  const env = (extra: Record<string, string>) => ({
    ...process.env,
    EDGEPLAN_URL: base(),
    NO_COLOR: '1',
    ...extra,
  });

  /**
   * Runs the command without blocking this process — the scripted LLM answers from it, so a command
   * that plans must not hold its event loop (spawnSync would wait for an answer it holds up).
   */
  function edgeplan(args: string[], extra: Record<string, string> = {}): Promise<CliResult> {
    const child = spawn(process.execPath, [cli, ...args], { cwd: dir, env: env(extra) });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += String(d)));
    child.stderr.on('data', (d: Buffer) => (err += String(d)));
    return new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err })));
  }

  /** Runs a command that plans nothing to its end; never throws, so exit codes are asserted. */
  function edgeplanSync(args: string[], extra: Record<string, string> = {}): CliResult {
    const r = spawnSync(process.execPath, [cli, ...args], {
      cwd: dir,
      env: env(extra),
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { code: r.status, out: r.stdout, err: r.stderr };
  }

  /** The command as one line of shell, for `script -c`. */
  const shellCommand = (args: string[]) =>
    [process.execPath, cli, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');

  /**
   * Runs the command on a terminal (a pseudo-terminal from util-linux `script`), as a person does:
   * the live view is drawn in place. What it printed, with the cursor movements and line ends of the
   * redraws taken out.
   */
  function edgeplanOnTerminal(args: string[], extra: Record<string, string> = {}): CliResult {
    const r = spawnSync('script', ['-qec', shellCommand(args), '/dev/null'], {
      cwd: dir,
      env: env(extra),
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { code: r.status, out: plain(r.stdout), err: r.stderr };
  }

  /**
   * Runs the command on a terminal as {@link edgeplanOnTerminal} does, typing each answer once what it
   * printed so far (the redraws taken out) matches its `after`, one after the other — as a person reads
   * the question before answering. Resolves when the command exits.
   */
  function edgeplanOnTerminalAnswering(
    args: string[],
    answers: { after: RegExp; type: string }[],
  ): Promise<CliResult> {
    // A terminal of a person's size: script's own has no columns, and the prompt would wrap at each character.
    const child = spawn('script', ['-qec', `stty cols 120 rows 40; ${shellCommand(args)}`, '/dev/null'], {
      cwd: dir,
      env: env({}),
    });
    let out = '';
    let err = '';
    let next = 0;
    child.stdout.on('data', (d: Buffer) => {
      out += String(d);
      const answer = answers[next];
      if (answer && answer.after.test(plain(out))) {
        next += 1;
        child.stdin.write(answer.type);
      }
    });
    child.stderr.on('data', (d: Buffer) => (err += String(d)));
    return new Promise((resolve) => child.on('close', (code) => resolve({ code, out: plain(out), err })));
  }

  async function api(method: string, path: string, body?: unknown): Promise<Json> {
    const res = await fetch(`${base()}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return (await res.json()) as Json;
  }

  /** The scripted LLM's answers for goals starting with `tag:` (scripted-llm-server.ts). */
  const llm = { script: (...a: Parameters<Scripted['script']>) => scripted!.script(...a) };

  return { edgeplan, edgeplanSync, edgeplanOnTerminal, edgeplanOnTerminalAnswering, api, llm, base };
}

// `wrangler dev` for scripts (benchmarks, the browser check, the recovery measurement): a free port, a
// throwaway local state directory with the D1 migrations applied, the demo tools on, and one stop()
// that ends the whole process group (wrangler, workerd, esbuild) and removes the state. kill() ends it
// the hard way (SIGKILL, state kept), so a second server can be started on the same state and port.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
// The project's own Node first on PATH for the children too (wrangler needs >= 22.12). Wrangler's
// local observability (on by default) streams a trace of every invocation, RPC call and SQL statement
// to a collector in the same process: measured, a fifth of the Worker's CPU and ~3 ms on every
// request. A deployed Worker traces nothing unless wrangler.toml's [observability] asks, so scripts and
// tests run without it (X_LOCAL_OBSERVABILITY=true keeps it).
const childEnv = {
  ...process.env,
  PATH: `${join(root, 'node_modules/.bin')}:${process.env.PATH ?? ''}`,
  X_LOCAL_OBSERVABILITY: process.env.X_LOCAL_OBSERVABILITY ?? 'false',
  // wrangler.toml's [build] (scripts/build-assets.mjs) on every start: skipped when nothing it reads
  // changed, so a server starting does not rewrite public/ under one that serves it.
  EDGEPLAN_ASSETS_IF_CHANGED: '1',
};
const wrangler = join(root, 'node_modules/.bin/wrangler');
let sigintHandled = false;

/**
 * A new throwaway local state directory with the D1 migrations applied; the caller removes it. `cwd`
 * is the project whose wrangler.toml is used (this repository by default).
 *
 * The first call applies the migrations with `wrangler d1 migrations apply` (a wrangler process and a
 * local D1: seconds, most of a test server's start) and keeps the result in the temp directory, keyed
 * by the project's wrangler.toml, its migration files and wrangler's version; later calls — in this
 * process or another — copy it.
 */
export function migratedState(name = 'edgeplan', cwd = root) {
  const persist = mkdtempSync(join(tmpdir(), `${name}-`));
  const template = join(tmpdir(), `edgeplan-migrated-${stateKey(cwd)}`);
  if (existsSync(template)) {
    cpSync(template, persist, { recursive: true });
    return persist;
  }
  const migrate = spawnSync(
    wrangler,
    ['d1', 'migrations', 'apply', 'DB', '--local', '--persist-to', persist],
    {
      cwd,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: childEnv,
    },
  );
  if (migrate.status !== 0) {
    rmSync(persist, { recursive: true, force: true });
    throw new Error(`wrangler d1 migrations apply exited with ${migrate.status}`);
  }
  // Copied aside, then renamed into place: another process sees the template whole or not at all (a
  // rename onto one that process made meanwhile fails, and theirs is kept).
  const staging = mkdtempSync(join(tmpdir(), 'edgeplan-migrating-'));
  try {
    cpSync(persist, staging, { recursive: true });
    renameSync(staging, template);
  } catch {
    rmSync(staging, { recursive: true, force: true });
  }
  return persist;
}

/** What a migrated state depends on: the project's wrangler.toml, its migrations, wrangler's version. */
function stateKey(cwd) {
  const hash = createHash('sha256');
  const toml = readFileSync(join(cwd, 'wrangler.toml'), 'utf8');
  hash.update(cwd).update(toml);
  hash.update(readFileSync(join(root, 'node_modules/wrangler/package.json')));
  for (const [, dir] of toml.matchAll(/migrations_dir\s*=\s*"([^"]+)"/g)) {
    const full = join(cwd, dir);
    if (!existsSync(full)) continue;
    for (const file of readdirSync(full).sort()) hash.update(file).update(readFileSync(join(full, file)));
  }
  return hash.digest('hex').slice(0, 20);
}

/**
 * Starts wrangler dev and waits until /health answers; `extraArgs` go to `wrangler dev`. Without
 * `persist` the state is a fresh {@link migratedState} that stop() removes; with it, that directory is
 * used as it is and left in place (how a server is restarted on a killed one's state). `port`
 * defaults to a free one. `upAt` is when /health first answered (Date.now()). `cwd` is the project to
 * run (this repository by default); `demoTools: false` leaves DEMO_TOOLS as its wrangler.toml says.
 */
export async function startDevServer(options = {}) {
  // wrangler dev takes ports of its own besides --port (found free, then bound: another server
  // starting at the same moment can take one first). It exits at once, and another start succeeds.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (err) {
      if (!(err instanceof ExitedEarly) || attempt === 3) throw err;
      // A port the caller chose, taken by another server: another attempt finds it taken again.
      if (err instanceof PortTaken && options.port !== undefined) throw err;
      console.error(`${err.message}: starting it again (${attempt} of 2)`);
    }
  }
}

class ExitedEarly extends Error {}
class PortTaken extends ExitedEarly {}

async function startOnce({
  name = 'edgeplan',
  extraArgs = [],
  port,
  persist,
  cwd = root,
  demoTools = true,
} = {}) {
  port ??= await freePort();
  const base = `http://127.0.0.1:${port}`;
  const ownsState = persist === undefined;
  persist ??= migratedState(name, cwd);
  // Detached, so the whole process group can be ended at once.
  const dev = spawn(
    wrangler,
    [
      'dev',
      '--port',
      String(port),
      '--ip',
      '127.0.0.1',
      '--persist-to',
      persist,
      ...(demoTools ? ['--var', 'DEMO_TOOLS:true'] : []),
      // Local and unauthenticated: without API_TOKEN the API answers 401 unless this is set.
      '--var',
      'ALLOW_ANONYMOUS:true',
      // This repository's own .dev.vars is a developer's `npm start` settings (an API_TOKEN would
      // close the API to the tests and benches): an empty env file is read instead. Another project
      // (the example's copy) runs with its own.
      ...(cwd === root ? ['--env-file', '/dev/null'] : []),
      ...extraArgs,
    ],
    { cwd, detached: true, stdio: ['ignore', 'ignore', 'inherit'], env: childEnv },
  );
  const exited = new Promise((resolve) => dev.once('exit', resolve));
  let ended = false;
  const end = (signal) => {
    if (ended) return false;
    ended = true;
    process.off('exit', stop);
    try {
      process.kill(-dev.pid, signal);
    } catch {
      // already gone
    }
    return true;
  };
  function stop() {
    end('SIGTERM');
    if (ownsState) rmSync(persist, { recursive: true, force: true });
  }
  /** SIGKILL to the whole group (a crash, not a shutdown); resolves once every process is gone. */
  async function kill() {
    end('SIGKILL');
    await exited;
    await groupGone(dev.pid);
  }
  process.on('exit', stop);
  if (!sigintHandled) {
    sigintHandled = true;
    process.on('SIGINT', () => process.exit(130));
  }
  let upAt;
  try {
    upAt = await waitUp(base, exited, dev.pid, port);
  } catch (err) {
    stop();
    throw err;
  }
  return { base, port, pid: dev.pid, persist, upAt, stop, kill };
}

async function waitUp(base, exited, pgid, port) {
  const deadline = Date.now() + 60_000;
  let gone = false;
  void exited.then(() => (gone = true));
  for (;;) {
    try {
      // Bounded: a port whose listener accepts and never answers would hold the start forever.
      const health = await fetch(`${base}/health`, { signal: AbortSignal.timeout(5_000) });
      if (health.ok && !gone) {
        // Another server may hold the port: one that took it between freePort() and this start
        // (another test file's workerd, listening on a port of the kernel's choosing). Its answers
        // are not this server's — its variables neither — so this one is not up.
        if (!groupListensOn(pgid, port)) throw new PortTaken(`another process answers on ${base}`);
        return Date.now();
      }
    } catch (err) {
      if (err instanceof ExitedEarly) throw err;
      // not listening yet
    }
    if (gone) throw new ExitedEarly(`wrangler dev exited before answering on ${base}`);
    if (Date.now() > deadline) throw new Error(`wrangler dev did not answer on ${base} within 60 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Whether a process of group `pgid` listens on IPv4 `port`, read from Linux's /proc: the listening
 * socket's inode (/proc/net/tcp) among the group's open files. Without /proc (macOS): true, unchecked.
 */
export function groupListensOn(pgid, port) {
  if (!existsSync('/proc/net/tcp')) return true;
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set(
    readFileSync('/proc/net/tcp', 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      // local_address is field 1 (ADDR:PORT in hex), st field 3 (0A: LISTEN), inode field 9.
      .filter((f) => f[1]?.endsWith(`:${hexPort}`) && f[3] === '0A')
      .map((f) => f[9]),
  );
  if (inodes.size === 0) return false;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    if (procGroup(pid) !== String(pgid)) continue;
    for (const fd of readOr(() => readdirSync(`/proc/${pid}/fd`), [])) {
      const socket = /^socket:\[(\d+)\]$/.exec(readOr(() => readlinkSync(`/proc/${pid}/fd/${fd}`), ''));
      if (socket && inodes.has(socket[1])) return true;
    }
  }
  return false;
}

/** The process group of `pid` (/proc/PID/stat: after the command's closing parenthesis come state, ppid, pgrp). */
function procGroup(pid) {
  const stat = readOr(() => readFileSync(`/proc/${pid}/stat`, 'utf8'), '');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2];
}

/** `read()`, or `otherwise` when what it reads is gone (a process or a descriptor closed meanwhile). */
function readOr(read, otherwise) {
  try {
    return read();
  } catch {
    return otherwise;
  }
}

/** Until no process of group `pgid` is left but zombies (their parent reaps them, or not). */
async function groupGone(pgid) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const r = spawnSync('ps', ['-e', '-o', 'pgid=,stat='], { encoding: 'utf8' });
    const alive = r.stdout
      .split('\n')
      .map((l) => l.trim().split(/\s+/))
      .filter(([g, stat]) => g === String(pgid) && !stat.startsWith('Z'));
    if (alive.length === 0) return;
    if (Date.now() > deadline) throw new Error(`process group ${pgid} still alive 10 s after SIGKILL`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

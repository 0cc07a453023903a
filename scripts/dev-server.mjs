// `wrangler dev` for scripts (benchmarks, the browser check): a free port, a throwaway local state
// directory with the D1 migrations applied, the demo tools on, and one stop() that ends the whole
// process group (wrangler, workerd, esbuild) and removes the state.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
// The project's own Node first on PATH for the children too (wrangler needs >= 22.12).
const childEnv = { ...process.env, PATH: `${join(root, 'node_modules/.bin')}:${process.env.PATH ?? ''}` };

/** Starts wrangler dev and waits until /health answers; `extraArgs` go to `wrangler dev`. */
export async function startDevServer({ name = 'edgeplan', extraArgs = [] } = {}) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const persist = mkdtempSync(join(tmpdir(), `${name}-`));
  const wrangler = join(root, 'node_modules/.bin/wrangler');
  const migrate = spawnSync(
    wrangler,
    ['d1', 'migrations', 'apply', 'DB', '--local', '--persist-to', persist],
    {
      cwd: root,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: childEnv,
    },
  );
  if (migrate.status !== 0) throw new Error(`wrangler d1 migrations apply exited with ${migrate.status}`);
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
      '--var',
      'DEMO_TOOLS:true',
      ...extraArgs,
    ],
    { cwd: root, detached: true, stdio: ['ignore', 'ignore', 'inherit'], env: childEnv },
  );
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    try {
      process.kill(-dev.pid, 'SIGTERM');
    } catch {
      // already gone
    }
    rmSync(persist, { recursive: true, force: true });
  };
  process.on('exit', stop);
  process.on('SIGINT', () => process.exit(130));
  try {
    await waitUp(base);
  } catch (err) {
    stop();
    throw err;
  }
  return { base, pid: dev.pid, stop };
}

async function waitUp(base) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await fetch(`${base}/health`)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`wrangler dev did not answer on ${base} within 60 s`);
    await new Promise((r) => setTimeout(r, 200));
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

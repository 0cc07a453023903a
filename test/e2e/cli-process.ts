/**
 * The built `edgeplan` command run to its end as a child process — asynchronously, so a loopback
 * server in the same test process keeps answering it (execFileSync would block that server).
 */
import { spawn } from 'node:child_process';

/** Runs `cli` with `args` in `cwd` against `url`; resolves once it exited and its output is read. */
export function runCli(
  cli: string,
  args: string[],
  { cwd, url }: { cwd: string; url: string },
): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [cli, ...args], {
    cwd,
    env: { ...process.env, EDGEPLAN_URL: url, NO_COLOR: '1' },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += String(d)));
  child.stderr.on('data', (d: Buffer) => (err += String(d)));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err })));
}

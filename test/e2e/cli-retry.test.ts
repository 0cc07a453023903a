/**
 * The built `edgeplan` command when the server refuses for now (src/client/retry-policy.ts): it says on
 * stderr that it waits and for how long, then sends the request again — stdout and the exit code are
 * what they would have been without the refusal; `--json` says it as a JSON line on stderr;
 * `--no-retry` answers the refusal at once. Against a real HTTP server on loopback that answers a
 * refusal with a real Retry-After of 1 s first. (Through the Worker: test/workers/client-retry.test.ts.)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './cli-process';

type Answer = { status: number; headers?: Record<string, string>; body: unknown };

const dir = mkdtempSync(join(tmpdir(), 'edgeplan-cli-retry-'));
const cli = join(dir, 'edgeplan.mjs');
let server: Server;
let url = '';
let answers: Answer[] = [];
const keys: (string | undefined)[] = [];

beforeAll(async () => {
  execFileSync(process.execPath, [join(process.cwd(), 'scripts/build-cli.mjs'), '--out', cli]);
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const key = req.headers['idempotency-key'];
      keys.push(typeof key === 'string' ? key : undefined);
      const next = answers.shift() ?? {
        status: 500,
        body: { error: { code: 'internal', message: 'unscripted' } },
      };
      res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
      res.end(JSON.stringify(next.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  writeFileSync(join(dir, 'plan.json'), JSON.stringify({ steps: [{ id: 'a', action: 'demo.echo' }] }));
}, 60_000);

afterAll(async () => {
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

const edgeplan = (args: string[]) => runCli(cli, args, { cwd: dir, url });

const deployInProgress: Answer = {
  status: 503,
  headers: { 'retry-after': '1' },
  body: { error: { code: 'deploy_in_progress', message: 'A deploy of edgeplan is rolling out' } },
};
const created: Answer = { status: 201, body: { run_id: 'run_1', status: 'running', links: {} } };

describe('edgeplan and a refusal the server says to send again', () => {
  it('run waits out 503 deploy_in_progress, saying so on stderr, and sends the create again with its key', async () => {
    answers = [deployInProgress, created];
    keys.length = 0;
    const r = await edgeplan(['run', 'plan.json', '--no-watch']);
    expect(r).toEqual({
      code: 0,
      out: 'run_1  running\n',
      err: 'edgeplan: deploy in progress: retrying in 1 s (Ctrl-C to stop)\n',
    });
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });

  it('with --json, says it as one JSON line on stderr; stdout holds only the answer', async () => {
    answers = [
      { ...deployInProgress, status: 429, body: { error: { code: 'rate_limited', message: 'slow down' } } },
      created,
    ];
    const r = await edgeplan(['run', 'plan.json', '--no-watch', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ run_id: 'run_1', status: 'running' });
    expect(JSON.parse(r.err)).toEqual({
      retrying: { method: 'POST', path: '/v1/runs', status: 429, code: 'rate_limited', retry: 1, wait_s: 1 },
    });
  });

  it('with --no-retry, answers the refusal at once: its code, exit 1', async () => {
    answers = [deployInProgress, created];
    const r = await edgeplan(['--no-retry', 'run', 'plan.json', '--no-watch']);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toBe('edgeplan: deploy_in_progress: A deploy of edgeplan is rolling out\n');
    answers = [];
  });

  it('does not send a cancel again after a 503 without a code that says it did nothing', async () => {
    answers = [
      {
        status: 503,
        headers: { 'retry-after': '1' },
        body: { error: { code: 'internal', message: 'overloaded' } },
      },
    ];
    keys.length = 0;
    const r = await edgeplan(['cancel', 'run_1']);
    expect(r.code).toBe(1);
    expect(r.err).toBe('edgeplan: internal: overloaded\n');
    expect(keys).toHaveLength(1);
  });
});

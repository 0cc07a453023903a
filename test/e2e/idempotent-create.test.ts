/**
 * `POST /v1/runs` with an `Idempotency-Key` end to end, against `wrangler dev` started here: requests
 * with one key sent at the same moment over real HTTP meet in one run object and start one run, its
 * side effect carried out once; `edgeplan run --idempotency-key` run twice is the same run.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script without declarations
import { startDevServer } from '../../scripts/dev-server.mjs';
import { serverApi } from './server-api';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const root = process.cwd();
const dir = mkdtempSync(join(tmpdir(), 'edgeplan-idempotent-'));
const cli = join(dir, 'edgeplan.mjs');
let server: { base: string; stop(): Promise<void> };
const { get } = serverApi(() => server.base);

beforeAll(async () => {
  execFileSync(process.execPath, [join(root, 'scripts/build-cli.mjs'), '--out', cli], { cwd: root });
  server = (await startDevServer({ name: 'idempotent-create' })) as typeof server;
}, 120_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A run whose one step counts, under its own counter, how often it ran (its output is the count). */
const countingPlan = (counter: string) => ({
  goal: 'count once',
  steps: [{ id: 'count', action: 'demo.counter', parameters: { key: counter } }],
});

async function untilEnded(runId: string): Promise<Json> {
  for (;;) {
    const run = await get(`/v1/runs/${runId}`);
    if (['completed', 'failed', 'aborted', 'cancelled'].includes(run.status as string)) return run;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('Idempotency-Key through wrangler dev', { timeout: 60_000 }, () => {
  it('starts one run for requests with the same key sent at once, and runs its step once', async () => {
    const key = `race-${crypto.randomUUID()}`;
    const body = JSON.stringify({ plan: countingPlan(key) });
    const answers = await Promise.all(
      Array.from({ length: 6 }, async () => {
        const res = await fetch(`${server.base}/v1/runs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'Idempotency-Key': key },
          body,
        });
        return {
          status: res.status,
          replayed: res.headers.get('Idempotent-Replayed'),
          body: (await res.json()) as Json,
        };
      }),
    );
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201, 201]);
    const runIds = new Set(answers.map((a) => a.body.run_id as string));
    expect(runIds.size).toBe(1);
    expect(answers.filter((a) => a.replayed === null)).toHaveLength(1);
    const [runId] = [...runIds] as [string];
    const run = await untilEnded(runId);
    expect(run.status).toBe('completed');
    // demo.counter returns the count after its increment: 1 means the step ran once.
    expect(run.step_results.count).toEqual({ key, value: 1 });
    const listed = await get('/v1/runs?limit=100');
    expect((listed.runs as Json[]).filter((r) => r.run_id === runId)).toHaveLength(1);
  });

  it('edgeplan run --idempotency-key: run again, the same run; with another plan, refused (exit 1)', () => {
    const key = `cli-${crypto.randomUUID()}`;
    writeFileSync(join(dir, 'plan.json'), JSON.stringify(countingPlan(key)));
    writeFileSync(join(dir, 'other.json'), JSON.stringify(countingPlan(`${key}-other`)));
    const edgeplan = (args: string[]) =>
      spawnSync(process.execPath, [cli, ...args], {
        cwd: dir,
        env: { ...process.env, EDGEPLAN_URL: server.base, NO_COLOR: '1' },
        encoding: 'utf8',
        timeout: 60_000,
      });
    const first = edgeplan(['run', 'plan.json', '--idempotency-key', key, '--no-watch', '--json']);
    const again = edgeplan(['run', 'plan.json', '--idempotency-key', key, '--no-watch', '--json']);
    expect([first.status, again.status], first.stderr + again.stderr).toEqual([0, 0]);
    const a = JSON.parse(first.stdout) as Json;
    const b = JSON.parse(again.stdout) as Json;
    expect(b.run_id).toBe(a.run_id);
    const other = edgeplan(['run', 'other.json', '--idempotency-key', key, '--no-watch', '--json']);
    expect(other.status).toBe(1);
    expect((JSON.parse(other.stdout) as Json).error.code).toBe('idempotency_key_reused');
  });
});

/** What the run-deletion tests share: runs to delete, and what is left of them in D1, KV and the object. */
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { expect, vi } from 'vitest';
import { api, startRun, waitForRun, type Json } from './helpers';
import { echo } from '../fixtures/echo-steps';

export { echo };

export const d1Rows = async (id: string) => {
  const [runs, versions] = await env.DB.batch<{ n: number }>([
    env.DB.prepare('SELECT count(*) AS n FROM runs WHERE run_id = ?').bind(id),
    env.DB.prepare('SELECT count(*) AS n FROM plan_versions WHERE run_id = ?').bind(id),
  ]);
  return { runs: runs!.results[0]!.n, versions: versions!.results[0]!.n };
};

/** The object's own tables (not the runtime's) and its alarm. */
export const objectStorage = (id: string) =>
  runInDurableObject(env.PLAN_RUN.getByName(id), async (_i, state) => ({
    tables: state.storage.sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '_cf_%'")
      .toArray()
      .map((r) => r.name),
    alarm: await state.storage.getAlarm(),
  }));

export const listed = async (id: string) =>
  ((await api('GET', '/v1/runs?limit=100')).body.runs as Json[]).some((r) => r.run_id === id);

/** A completed run, listed in D1 with its plan version, whose version 1 was read (so KV holds a copy). */
export async function endedRun(): Promise<string> {
  const id = await startRun({ goal: 'two echoes', steps: [echo('a'), echo('b', ['a'])] });
  expect((await waitForRun(id)).status).toBe('completed');
  await vi.waitFor(async () => expect(await d1Rows(id)).toEqual({ runs: 1, versions: 1 }));
  expect((await api('GET', `/v1/runs/${id}/plans/1`)).status).toBe(200);
  expect(await env.KV.get(`plan:${id}:v1`)).not.toBeNull();
  return id;
}

/** Makes D1 batches (or KV deletes) fail in the run's object, as an outage would. */
export async function breakInObject(id: string, what: 'DB' | 'KV'): Promise<void> {
  await runInDurableObject(env.PLAN_RUN.getByName(id), (instance) => {
    const own = (instance as unknown as { env: Env }).env;
    const real = own[what];
    const broken = (key: string | symbol) => (what === 'DB' ? key === 'batch' : key === 'delete');
    // A per-instance copy of env, so the outage stays in this instance (and dies with it).
    (instance as unknown as { env: Env }).env = {
      ...own,
      [what]: new Proxy(real, {
        get: (target, key) =>
          broken(key)
            ? () => Promise.reject(new Error(`${what} is unavailable`))
            : (Reflect.get(target, key) as unknown),
      }),
    };
  });
}

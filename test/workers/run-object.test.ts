/**
 * The run's object as the Worker calls it (src/durable/run-object.ts): its RPC methods answered as the
 * object answers them, a refusal of a run a newer release wrote thrown again in the caller as the
 * error the API and the consumers know, and the stub's own `id` and `fetch` as they are. In the
 * Workers runtime, with real run objects.
 */
import { evictDurableObject, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { runObject } from '../../src/durable/run-object';
import { FORMAT_KEY, isNewerFormatRun, STORAGE_FORMAT } from '../../src/durable/storage-format';
import { startRun, waitForRun } from './helpers';

describe('a run object as the Worker calls it', () => {
  it('answers a method with the object’s value, and is no thenable, its id the stub’s', async () => {
    const runId = await startRun({ steps: [{ id: 'a', action: 'demo.echo', parameters: { x: 1 } }] });
    await waitForRun(runId);
    const run = runObject(env.PLAN_RUN, runId);
    expect((await run.getStatus({}))?.run_status).toBe('completed');
    // Awaited (returned from an async function, say), it is itself, not a call of a method `then`.
    expect(await Promise.resolve(run)).toBe(run);
    expect(run.id.name).toBe(runId);
  });

  it('throws a newer format’s refusal in the caller, as the error the API answers 503', async () => {
    const runId = await startRun({ steps: [{ id: 'a', action: 'demo.echo', parameters: { x: 1 } }] });
    await waitForRun(runId);
    const stub = env.PLAN_RUN.getByName(runId);
    await runInDurableObject(stub, (_o, state) => {
      state.storage.sql.exec(
        'UPDATE meta SET value = ? WHERE key = ?',
        String(STORAGE_FORMAT + 1),
        FORMAT_KEY,
      );
    });
    // Loaded again, as after a deploy: the object answers with a value (nothing thrown across RPC)…
    await evictDurableObject(stub);
    await runInDurableObject(stub, (o: { getRun(): unknown }) => {
      expect(o.getRun()).toEqual({ run_newer_format: expect.stringContaining('newer than this release') });
    });
    // …which the Worker's side throws again.
    const err = await runObject(env.PLAN_RUN, runId)
      .getRun()
      .catch((e: unknown) => e);
    expect(isNewerFormatRun(err)).toBe(true);
  });
});

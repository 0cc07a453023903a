/**
 * A run object's storage format (src/durable/storage-format.ts): stamped by the run's first
 * transaction; an object without a stamp is format 1 and is not written to for it; an object an older
 * format wrote is migrated once, in one transaction, when loaded; one a newer release wrote (a
 * rollback) is refused and left as it was — `run_newer_format` on every route, its alarm kept, its
 * queue messages waiting.
 */
import {
  abortAllDurableObjects,
  createExecutionContext,
  createMessageBatch,
  getQueueResult,
  runDurableObjectAlarm,
  runInDurableObject,
} from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { describe, expect, it, vi } from 'vitest';
import type { StepMessage } from '../../src/durable/messages';
import {
  BASE_FORMAT,
  FORMAT_KEY,
  formatFor,
  migrationsFor,
  NEWER_FORMAT_RETRY_S,
  STORAGE_FORMAT,
  STORAGE_MIGRATIONS,
  storedFormat,
  upgradeStorage,
  type StorageMigration,
} from '../../src/durable/storage-format';
import { parseRunConfig } from '../../src/plan/config';
import worker from '../../src/worker';
import { api, startRun, waitForRun } from './helpers';
import { dumpObject } from './storage-fixture';

const inObject = <T>(runId: string, fn: (state: DurableObjectState) => T | Promise<T>) =>
  runInDurableObject(env.PLAN_RUN.getByName(runId), (_i, state) => fn(state));

const stampOf = (runId: string) =>
  inObject(runId, (s) =>
    s.storage.sql
      .exec<{ value: string }>('SELECT value FROM meta WHERE key = ?', FORMAT_KEY)
      .toArray()
      .map((r) => r.value),
  );

async function awaitingApproval(key: string): Promise<string> {
  const runId = await startRun(
    { steps: [{ id: 'a', action: 'demo.counter', parameters: { key } }] },
    { require_plan_approval: true, placement: 'queue', execution_mode: 'parallel' },
  );
  await waitForRun(runId, (r) => r.status === 'awaiting_approval');
  return runId;
}

describe('a run object’s storage format', () => {
  it('is stamped by the run’s first transaction (PRAGMA user_version is refused)', async () => {
    const runId = await startRun({ steps: [{ id: 'a', action: 'demo.echo', parameters: { x: 1 } }] });
    await waitForRun(runId);
    expect(await stampOf(runId)).toEqual([String(BASE_FORMAT)]);
    await inObject(runId, (s) => expect(() => s.storage.sql.exec('PRAGMA user_version')).toThrow());
  });

  it('is format 2 for a run that asks for its revisions’ approval, which a format-1 release refuses', async () => {
    const asks = { require_plan_approval: true, approval: { revisions: 'ask' } };
    const runId = await startRun({ steps: [{ id: 'a', action: 'demo.echo', parameters: { x: 1 } }] }, asks);
    await waitForRun(runId, (r) => r.status === 'awaiting_approval');
    expect(await stampOf(runId)).toEqual(['2']);
    // A format-1 release (ae03508) would drop `revisions` from the config and run a revision unasked.
    expect(() => migrationsFor(2, runId, STORAGE_MIGRATIONS.slice(0, 1))).toThrow(
      /stored in format 2, and this release reads formats up to 1/,
    );
    // Loaded again by this release, it is served as it is.
    await abortAllDurableObjects();
    expect((await api('POST', `/v1/runs/${runId}/approval`, { decision: 'approve' })).status).toBe(200);
    expect((await waitForRun(runId)).status).toBe('completed');
    expect(await stampOf(runId)).toEqual(['2']);
    // Every other run stays in format 1, which a rollback to a format-1 release still serves.
    expect(formatFor(parseRunConfig({ require_plan_approval: true }))).toBe(1);
    expect(formatFor(parseRunConfig({ approval: { revisions: 'ask' } }))).toBe(1);
    expect(formatFor(parseRunConfig(asks))).toBe(2);
  });

  it('is format 1 when unstamped (written before the stamp): loaded, carried on, not stamped', async () => {
    const runId = await awaitingApproval(`format-unstamped-${crypto.randomUUID()}`);
    await inObject(runId, (s) => s.storage.sql.exec('DELETE FROM meta WHERE key = ?', FORMAT_KEY));
    await abortAllDurableObjects();
    expect((await api('POST', `/v1/runs/${runId}/approval`, { decision: 'approve' })).status).toBe(200);
    expect((await waitForRun(runId)).status).toBe('completed');
    expect(await stampOf(runId)).toEqual([]);
  });

  it('newer than this release (a rollback): refused on every route, unchanged, alarm and messages kept', async () => {
    const runId = await awaitingApproval(`format-newer-${crypto.randomUUID()}`);
    const newer = String(STORAGE_FORMAT + 1);
    await inObject(runId, (s) =>
      s.storage.sql.exec('UPDATE meta SET value = ? WHERE key = ?', newer, FORMAT_KEY),
    );
    await abortAllDurableObjects();
    const before = await dumpObject(runId);
    expect(before.alarm).not.toBeNull();
    for (const [method, path, body] of [
      ['GET', '', undefined],
      ['GET', '/status', undefined],
      ['GET', '/events', undefined],
      ['GET', '/state', undefined],
      ['POST', '/approval', { decision: 'approve' }],
      ['POST', '/cancel', {}],
    ] as const) {
      const res = await api(method, `/v1/runs/${runId}${path}`, body);
      expect(res.status, path).toBe(503);
      expect(res.headers.get('retry-after'), path).toBe('300');
      const error = res.body.error as { code: string; message: string };
      expect(error.code, path).toBe('run_newer_format');
      expect(error.message).toContain(`stored in format ${newer}`);
      expect(error.message).toContain(`reads formats up to ${STORAGE_FORMAT}`);
      expect(error.message).toContain('Deploy the newer release again');
    }
    // The alarm fires under this release: the run is left alone, and the alarm set again for later.
    expect(await runDurableObjectAlarm(env.PLAN_RUN.getByName(runId))).toBe(true);
    const alarm = await inObject(runId, (s) => s.storage.getAlarm());
    expect(alarm).toBeGreaterThan(Date.now() + 60_000);
    // A step message for it waits in the queue, long enough between deliveries to outlast a rollback.
    const msg: StepMessage = { run_id: runId, step_id: 'a', attempt: 1, plan_version: 1 };
    const batch = createMessageBatch<StepMessage>('steps', [
      { id: 'm0', timestamp: new Date(), attempts: 1, body: msg },
    ]);
    const retried = vi.spyOn(batch.messages[0]!, 'retry');
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    const result = await getQueueResult(batch, ctx);
    expect(result.retryMessages.map((m) => m.msgId)).toEqual(['m0']);
    expect(result.explicitAcks).toEqual([]);
    expect(retried).toHaveBeenCalledWith({ delaySeconds: NEWER_FORMAT_RETRY_S });
    // Not a row changed.
    expect({ ...(await dumpObject(runId)), alarm: null }).toEqual({ ...before, alarm: null });
  });

  it('newer than this release: every RPC method of its object answers the refusal as a value, never a throw', async () => {
    // A throw crosses RPC as its message only, and workerd logs each one in the object as an uncaught
    // exception; the Worker throws the refusal again itself (run-object.ts), answered as above.
    const runId = await awaitingApproval(`format-newer-rpc-${crypto.randomUUID()}`);
    const newer = String(STORAGE_FORMAT + 1);
    await inObject(runId, (s) =>
      s.storage.sql.exec('UPDATE meta SET value = ? WHERE key = ?', newer, FORMAT_KEY),
    );
    await abortAllDurableObjects();
    const before = await dumpObject(runId);
    const stub = env.PLAN_RUN.getByName(runId);
    const step = { step_id: 'a', attempt: 1 };
    const calls: [string, () => Promise<unknown>][] = [
      [
        'create',
        async () =>
          stub.create({ run_id: runId, goal: 'g', config: parseRunConfig({}), input: {}, estimates: null }),
      ],
      ['getRun', async () => stub.getRun()],
      ['progress', async () => stub.progress()],
      ['getStatus', async () => stub.getStatus({})],
      ['deleteRun', async () => stub.deleteRun({ force: true })],
      ['listEvents', async () => stub.listEvents(0, 10)],
      ['readValue', async () => stub.readValue('input')],
      ['stateAt', async () => stub.stateAt()],
      ['planVersion', async () => stub.planVersion(1)],
      ['planVersions', async () => stub.planVersions()],
      ['attempts', async () => stub.attempts()],
      ['cancel', async () => stub.cancel('no')],
      ['retry', async () => stub.retry()],
      ['approve', async () => stub.approve({ decision: 'approve' })],
      ['approvalPage', async () => stub.approvalPage('token')],
      ['rollback', async () => stub.rollback(1)],
      ['replan', async () => stub.replan('why')],
      ['input', async () => stub.input({ answer: 1 })],
      ['awaitInput', async () => stub.awaitInput('a', 1, 'Which?')],
      ['handedOver', async () => stub.handedOver('a', 1)],
      ['beginSteps', async () => stub.beginSteps([step])],
      ['renewLeases', async () => stub.renewLeases([step])],
      [
        'completeSteps',
        async () => stub.completeSteps([{ ...step, outcome: { success: true, output: 1, latency_ms: 0 } }]),
      ],
    ];
    for (const [method, call] of calls) {
      // Resolved, not rejected: a rejection fails the test here, naming no method — so say it.
      const answer = await call().catch((err: unknown) => ({ thrown: String(err) }));
      expect(answer, method).toEqual({
        run_newer_format: expect.stringContaining(`stored in format ${newer}`),
      });
    }
    // The run's WebSocket (the object's fetch) is answered as the API's other routes are.
    const ws = await exports.default.fetch(
      new Request(`http://edgeplan.test/v1/runs/${runId}/ws`, { headers: { Upgrade: 'websocket' } }),
    );
    expect([ws.status, ws.headers.get('retry-after')]).toEqual([503, '300']);
    expect((await ws.json<{ error: { code: string } }>()).error.code).toBe('run_newer_format');
    // So is a wait for it (GET /v1/runs/:id/wait reads its progress first).
    const wait = await exports.default.fetch(
      new Request(`http://edgeplan.test/v1/runs/${runId}/wait?timeout_s=1`),
    );
    expect([wait.status, wait.headers.get('retry-after')]).toEqual([503, '300']);
    // Not a row changed.
    expect({ ...(await dumpObject(runId)), alarm: null }).toEqual({ ...before, alarm: null });
  });

  it('is migrated when older: pending migrations once, in one transaction, stamped at the end', async () => {
    const runId = await startRun({ steps: [{ id: 'a', action: 'demo.echo', parameters: { x: 1 } }] });
    await waitForRun(runId);
    const v2: StorageMigration = {
      to: 2,
      about: 'a table of notes',
      migrate: (sql) => void sql.exec("CREATE TABLE notes (n TEXT); INSERT INTO notes VALUES ('v2')"),
    };
    const v3: StorageMigration = {
      to: 3,
      about: 'fails half way',
      migrate: (sql) => {
        sql.exec("INSERT INTO notes VALUES ('v3')");
        throw new Error('v3 refused');
      },
    };
    const base = STORAGE_MIGRATIONS.slice(0, 1);
    await inObject(runId, (s) => {
      const notes = () => s.storage.sql.exec<{ n: string }>('SELECT n FROM notes').toArray();
      expect(upgradeStorage(s.storage, 1, runId, [...base, v2])).toBe(2);
      expect(upgradeStorage(s.storage, 2, runId, [...base, v2])).toBe(2);
      expect(notes()).toEqual([{ n: 'v2' }]);
      expect(() => upgradeStorage(s.storage, 2, runId, [...base, v2, v3])).toThrow('v3 refused');
      // Rolled back whole: v3's row is gone and the stamp still says 2.
      expect(notes()).toEqual([{ n: 'v2' }]);
    });
    expect(await stampOf(runId)).toEqual(['2']);
  });

  it('brings an older object past a format only some runs need only with a format every run needs', async () => {
    const runId = await startRun({ steps: [{ id: 'a', action: 'demo.echo', parameters: { x: 1 } }] });
    await waitForRun(runId);
    const base = STORAGE_MIGRATIONS.slice(0, 1);
    const some: StorageMigration = { to: 2, about: 'some runs', migrate: () => {}, needs: () => true };
    const every: StorageMigration = {
      to: 3,
      about: 'every run',
      migrate: (sql) => void sql.exec('CREATE TABLE notes (n TEXT)'),
    };
    await inObject(runId, (s) => {
      s.storage.sql.exec('DELETE FROM meta WHERE key = ?', FORMAT_KEY);
      expect(upgradeStorage(s.storage, 1, runId, [...base, some])).toBe(1);
      expect(formatFor(parseRunConfig({}), [...base, some])).toBe(2);
      expect(formatFor(parseRunConfig({}), [...base, { ...some, needs: () => false }])).toBe(1);
    });
    expect(await stampOf(runId)).toEqual([]);
    await inObject(runId, (s) => expect(upgradeStorage(s.storage, 1, runId, [...base, some, every])).toBe(3));
    expect(await stampOf(runId)).toEqual(['3']);
    await inObject(runId, (s) =>
      s.storage.sql.exec('UPDATE meta SET value = ? WHERE key = ?', String(BASE_FORMAT), FORMAT_KEY),
    );
  });

  it('has a registry of consecutive formats from 1, and refuses a stamp it cannot read', () => {
    expect(STORAGE_MIGRATIONS.map((m) => m.to)).toEqual(STORAGE_MIGRATIONS.map((_m, i) => i + 1));
    expect(storedFormat(null)).toBe(1);
    expect(storedFormat('1')).toBe(1);
    expect(() => migrationsFor(storedFormat('v9'), 'run_x')).toThrow(/a format it cannot read/);
    expect(migrationsFor(STORAGE_FORMAT, 'run_x')).toEqual([]);
    // A format only some runs need comes last or before a format every run needs.
    expect(STORAGE_MIGRATIONS[0]!.needs).toBeUndefined();
    expect(BASE_FORMAT).toBe(1);
  });
});

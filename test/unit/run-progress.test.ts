import { describe, expect, it } from 'vitest';
import type { RunObject } from '../../src/durable/run-object';
import { progressOf } from '../../src/http/run-progress';

/** A run object's stub as far as progressOf reads it. */
const stub = (progress: () => Promise<unknown>, getRun: () => Promise<unknown>) =>
  ({ progress, getRun }) as unknown as RunObject;
// What workerd throws for a method the object's class does not have (its js-rpc tests' wording).
const missing = () =>
  Promise.reject(new TypeError('The RPC receiver does not implement the method "progress".'));

describe('progressOf', () => {
  it('asks the object for its progress', async () => {
    let snapshots = 0;
    const s = stub(
      () => Promise.resolve({ status: 'running', last_seq: 7 }),
      () => Promise.resolve(++snapshots),
    );
    await expect(progressOf(s)).resolves.toEqual({ status: 'running', last_seq: 7 });
    expect(snapshots).toBe(0);
  });

  it('reads an object of the release before progress() through its snapshot (a rollout)', async () => {
    const s = stub(missing, () => Promise.resolve({ status: 'completed', last_seq: 9, run_id: 'run_x' }));
    await expect(progressOf(s)).resolves.toEqual({ status: 'completed', last_seq: 9 });
    await expect(progressOf(stub(missing, () => Promise.resolve(null)))).resolves.toBeNull();
  });

  it('lets any other failure through', async () => {
    const s = stub(
      () => Promise.reject(new Error('Run state unreadable')),
      () => Promise.resolve({ status: 'completed', last_seq: 1 }),
    );
    await expect(progressOf(s)).rejects.toThrow('Run state unreadable');
  });
});

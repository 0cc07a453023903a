import { describe, expect, it } from 'vitest';
import { Alarm } from '../../src/durable/alarm';

/** The three alarm calls of a Durable Object's storage, counted. */
function storage(initial: number | null) {
  const calls = { get: 0, set: [] as number[], deleted: 0 };
  let at = initial;
  const s = {
    getAlarm: () => {
      calls.get++;
      return Promise.resolve(at);
    },
    setAlarm: (t: number) => {
      calls.set.push(t);
      at = t;
      return Promise.resolve();
    },
    deleteAlarm: () => {
      calls.deleted++;
      at = null;
      return Promise.resolve();
    },
  };
  return { calls, storage: s as unknown as DurableObjectStorage };
}

describe('Alarm', () => {
  it('sets a new run’s alarm in the same turn, reading nothing', () => {
    const { calls, storage: s } = storage(null);
    const alarm = new Alarm(s);
    alarm.fresh();
    // Called and not awaited: the set must already have happened synchronously, so it lands in the
    // decision's commit rather than in one of its own after an await.
    void alarm.by(1_000);
    expect(calls.set).toEqual([1_000]);
    expect(calls.get).toBe(0);
  });

  it('reads the stored alarm once per instance, not again after a delete', async () => {
    const { calls, storage: s } = storage(5_000);
    const alarm = new Alarm(s);
    await alarm.by(6_000); // later than the stored one: kept
    expect(calls).toEqual({ get: 1, set: [], deleted: 0 });
    await alarm.by(null);
    expect(calls.deleted).toBe(1);
    await alarm.by(7_000);
    await alarm.to(8_000);
    expect(calls.get).toBe(1);
    expect(calls.set).toEqual([7_000, 8_000]);
  });

  it('moves only earlier with by(), to any time with to(), and clears once', async () => {
    const { calls, storage: s } = storage(null);
    const alarm = new Alarm(s);
    alarm.fresh();
    await alarm.by(3_000);
    await alarm.by(4_000);
    await alarm.by(2_000);
    await alarm.to(9_000);
    await alarm.to(9_000);
    await alarm.to(null);
    await alarm.to(null);
    expect(calls.set).toEqual([3_000, 2_000, 9_000]);
    expect(calls.deleted).toBe(1);
  });

  // A run stored before a step's timeout_ms was bounded on every path has deadlines after 2189, which
  // a Durable Object's setAlarm refuses (it threw on every decision of that run): set two years ahead
  // at most, the alarm fires early and is set again, as any early alarm is.
  it('sets the alarm no further ahead than two years, whatever is due', async () => {
    const { calls, storage: s } = storage(null);
    const alarm = new Alarm(s);
    const before = Date.now();
    await alarm.by(1e13 + before);
    await alarm.to(9e15);
    const twoYears = 2 * 365 * 24 * 3600 * 1000;
    expect(calls.set.length).toBeGreaterThan(0);
    for (const at of calls.set) {
      expect(at).toBeGreaterThanOrEqual(before + twoYears);
      expect(at).toBeLessThanOrEqual(Date.now() + twoYears);
      expect(new Date(at).getUTCFullYear()).toBeLessThan(2189);
    }
  });
});

/** The clock and id source the library uses when none is given: real time, random ids. */
import type { Clock, IdSource } from '../plan/model';

/**
 * Wall-clock time.
 * @example new RuleBasedPlanner({ rules, clock: systemClock, ids: randomIds });
 */
export const systemClock: Clock = { now: () => new Date() };

/**
 * Random ids from `crypto.randomUUID` (global in Workers and in Node 19+): `plan_3f9c…`.
 * @example randomIds.id('run'); // "run_5d41402abc4b2a76"
 */
export const randomIds: IdSource = {
  id: (prefix) => `${prefix}_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`,
  uuid: () => crypto.randomUUID(),
};

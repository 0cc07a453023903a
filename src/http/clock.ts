/** The wall clock for the HTTP layer; pure modules receive it as an argument. */
import type { Clock } from '../plan/model';

/**
 * Real time. In a Worker, time advances only across I/O, which is what a request handler wants.
 * @example systemClock.now().toISOString()
 */
export const systemClock: Clock = { now: () => new Date() };

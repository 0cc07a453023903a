/** Id generation for the HTTP layer; pure modules receive it as an argument. */
import type { IdSource } from '../plan/model';

/**
 * Random ids from `crypto.randomUUID()`: `id('plan')` → `plan_3f2c…` (32 hex digits, no dashes, so
 * the id is one token when double-clicked or used in a URL); `uuid()` → a plain UUID.
 * @example randomIds.id('run') // "run_9b1deb4d3b7d4bad9bdd2b0d7b3dcb6d"
 */
export const randomIds: IdSource = {
  id: (prefix) => `${prefix}_${crypto.randomUUID().replaceAll('-', '')}`,
  uuid: () => crypto.randomUUID(),
};

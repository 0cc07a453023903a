/**
 * Request objects that refuse keys they do not know. A misspelt key silently dropped is a setting the
 * caller believes is on — `require_plan_aproval: true` ran the plan with no approval — so the request
 * is refused naming the key, with the known key it most likely meant.
 */
import { z } from '@hono/zod-openapi';
import { unknownKeysError } from '../../plan/key-suggestions';

/**
 * `z.strictObject(shape)` whose "unrecognized key" message suggests the nearest known key.
 * @example strictObject({ reason: z.string() }) // { reasn: 'x' } → `Unknown key "reasn" (did you mean "reason"?)`
 */
export function strictObject<T extends z.ZodRawShape>(shape: T) {
  return z.strictObject(shape, { error: unknownKeysError(Object.keys(shape)) });
}

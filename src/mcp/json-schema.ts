/**
 * JSON Schema → zod, for an MCP tool's `inputSchema` / `outputSchema`: the registry validates a step's
 * parameters (and a result) with zod, and the planner and `GET /v1/tools` describe tools from it. zod 4's
 * own `fromJSONSchema` does the work, so no second validator ships in the bundle; the SDK's `ajv`
 * default compiles with `new Function`, which the Workers runtime refuses.
 */
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { z } from 'zod';

/** An object with any keys: what a schema zod cannot read falls back to. */
const ANY_OBJECT = z.record(z.string(), z.unknown());

/**
 * The zod schema for `schema`, or an object with any keys when zod cannot convert it (a `$ref` it does
 * not resolve, say; `onUnreadable` is told why) — the server still validates its own input.
 * @example zodFromJsonSchema({ type: 'object', properties: { a: { type: 'number' } }, required: ['a'] });
 */
export function zodFromJsonSchema(schema: unknown, onUnreadable?: (why: string) => void): z.ZodType {
  if (typeof schema !== 'object' || schema === null) return ANY_OBJECT;
  try {
    return z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (err) {
    onUnreadable?.(err instanceof Error ? err.message : String(err));
    return ANY_OBJECT;
  }
}

/**
 * The SDK's `jsonSchemaValidator` port backed by zod (Client and Server options), so neither ever
 * compiles a schema with ajv.
 * @example new Client(info, { jsonSchemaValidator: zodJsonSchemaValidator });
 */
export const zodJsonSchemaValidator: jsonSchemaValidator = {
  getValidator<T>(schema: unknown) {
    const zod = zodFromJsonSchema(schema);
    return (input: unknown) => {
      const r = zod.safeParse(input);
      return r.success
        ? { valid: true as const, data: r.data as T, errorMessage: undefined }
        : { valid: false as const, data: undefined, errorMessage: z.prettifyError(r.error) };
    };
  },
};

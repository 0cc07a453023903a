/** Schemas for values the API passes through as arbitrary JSON. */
import { z } from '@hono/zod-openapi';

/**
 * Any JSON value, but present: `z.unknown()` alone would accept a missing key and the OpenAPI
 * document would list the field as optional.
 * @example z.object({ plan: anyJson({ description: 'The plan' }) })
 */
export function anyJson(meta: { description: string; $ref?: string }) {
  const { $ref, description } = meta;
  return (
    z
      .unknown()
      // `: boolean` keeps the output type `unknown`: an inferred type predicate would narrow it.
      .refine((v): boolean => v !== undefined, { message: 'Required' })
      .openapi($ref ? { description, allOf: [{ $ref }] } : { description })
  );
}

/** Response schema of `GET /v1/tools`. */
import { z } from '@hono/zod-openapi';
import { anyJson } from './json';

export const ToolDescriptionSchema = z
  .object({
    name: z.string().openapi({ example: 'http.request' }),
    description: z.string(),
    version: z.string(),
    idempotent: z.boolean().openapi({ description: 'Safe to run twice with the same input' }),
    deterministic: z.boolean().openapi({ description: 'Same input gives the same output (cacheable)' }),
    input_schema: anyJson({ description: 'JSON Schema of the parameters' }),
    output_schema: z
      .unknown()
      .optional()
      .openapi({ description: 'JSON Schema of the output, when declared' }),
  })
  .openapi('Tool');

export const ToolListSchema = z.object({ tools: z.array(ToolDescriptionSchema) });

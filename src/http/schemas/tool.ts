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

export const UnavailableToolSchema = z
  .object({
    server: z.string().openapi({
      description:
        'The MCP_SERVERS entry: its name (`MCP_SERVERS[i]` for a malformed entry without one, `MCP_SERVERS` when the variable itself is malformed)',
      example: 'files',
    }),
    name: z.string().optional().openapi({
      description:
        'The action a plan would name (`mcp.<server>.<tool>`); absent when the whole server could not be listed or its MCP_SERVERS entry is malformed',
      example: 'mcp.files.ünï',
    }),
    reason: z.string().openapi({
      description: 'Why plans cannot use it, and what to change',
      example: 'MCP tool names are 1-128 of A-Z, a-z, 0-9, "_", "-" and "."; rename the tool on the server',
    }),
  })
  .openapi('UnavailableTool');

export const ToolListSchema = z.object({
  tools: z.array(ToolDescriptionSchema),
  unavailable: z.array(UnavailableToolSchema).openapi({
    description:
      'Malformed MCP_SERVERS entries, MCP servers that could not be listed, and tools a server lists that were left out (a name MCP does not allow, a second tool of one name, a definition MCP refuses), each with why; a plan naming one gets `unknown_tool` saying the same',
  }),
});

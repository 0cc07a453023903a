/** An MCP tool's JSON Schema as zod (src/mcp/json-schema.ts), and what happens to one zod cannot read. */
import { describe, expect, it } from 'vitest';
import { zodFromJsonSchema } from '../../src/mcp/json-schema';

describe('zodFromJsonSchema', () => {
  it('reads $defs and $ref', () => {
    const schema = zodFromJsonSchema({
      type: 'object',
      $defs: { n: { type: 'number' } },
      properties: { a: { $ref: '#/$defs/n' } },
      required: ['a'],
    });
    expect(schema.safeParse({ a: 1 }).success).toBe(true);
    expect(schema.safeParse({ a: 'x' }).success).toBe(false);
  });

  it('says why a schema cannot be read, and then accepts any object', () => {
    const why: string[] = [];
    const schema = zodFromJsonSchema(
      { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } },
      (reason) => why.push(reason),
    );
    // It fell back silently: nothing logged, the planner lost the parameter list.
    expect(why).toHaveLength(1);
    expect(why[0]).toMatch(/missing/);
    expect(schema.safeParse({ x: 5 }).success).toBe(true);
  });
});

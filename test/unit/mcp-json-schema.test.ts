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

  it('accepts any object for a $ref that loops back to itself, instead of overflowing the stack on every check', () => {
    const loops: Record<string, unknown>[] = [
      { type: 'object', $ref: '#/$defs/A', $defs: { A: { $ref: '#/$defs/A' } } },
      {
        type: 'object',
        properties: { x: { $ref: '#/$defs/A' } },
        $defs: { A: { anyOf: [{ $ref: '#/$defs/B' }] }, B: { allOf: [{ $ref: '#/$defs/A' }] } },
      },
      { anyOf: [{ type: 'string' }, { $ref: '#' }] },
    ];
    for (const loop of loops) {
      const why: string[] = [];
      const schema = zodFromJsonSchema(loop, (reason) => why.push(reason));
      expect(why[0]).toMatch(/refers back to itself/);
      expect(schema.safeParse({ x: { y: 1 } }).success).toBe(true);
    }
  });

  it('keeps a recursive schema whose $ref reads a level deeper each time (a tree)', () => {
    const why: string[] = [];
    const tree = zodFromJsonSchema(
      { type: 'object', properties: { name: { type: 'string' }, child: { $ref: '#' } }, required: ['name'] },
      (reason) => why.push(reason),
    );
    expect(why).toEqual([]);
    expect(tree.safeParse({ name: 'a', child: { name: 'b', child: { name: 'c' } } }).success).toBe(true);
    expect(tree.safeParse({ name: 'a', child: { child: { name: 'c' } } }).success).toBe(false);
  });
});

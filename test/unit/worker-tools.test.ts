import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type AnyTool } from '../../src/executor/registry';
import { toolSource } from '../../src/durable/tools';

const tool = (name: string) =>
  defineTool({
    name,
    description: 'A team tool',
    version: '1',
    input: z.object({ name: z.string() }),
    idempotent: true,
    deterministic: true,
    run: ({ name: who }) => Promise.resolve({ greeting: `Hi ${who}` }),
  });

describe('the Worker registry (edgeplan/worker composition)', () => {
  it('adds a team tool beside the built-in and runtime tools, and the demo pack only with DEMO_TOOLS', () => {
    const tools = toolSource([tool('team.greet')]);
    expect(tools({}).names()).toEqual([
      'agent.dispatch',
      'agent.message',
      'http.request',
      'human.input',
      'llm.call',
      'plan.decompose',
      'plan.execute',
      'plan.replan',
      'plan.status',
      'team.greet',
    ]);
    expect(tools({ DEMO_TOOLS: 'true' }).names()).toContain('demo.echo');
    expect(tools({ DEMO_TOOLS: 'true' }).names()).toContain('team.greet');
  });

  it('builds one registry per bindings object', () => {
    const tools = toolSource([tool('team.greet')]);
    const env = { DEMO_TOOLS: 'false' };
    expect(tools(env)).toBe(tools(env));
    expect(tools(env)).not.toBe(tools({ DEMO_TOOLS: 'false' }));
  });

  it.each(['http.request', 'agent.dispatch', 'plan.status', 'demo.echo'])(
    'refuses a team tool named like the built-in %s, naming it',
    (name) => {
      expect(() => toolSource([tool(name)])).toThrow(`edgeplan: tool "${name}" is built in`);
    },
  );

  it('refuses a team tool under mcp., saying the prefix is MCP servers’', () => {
    expect(() => toolSource([tool('mcp.audit.add')])).toThrow(
      'edgeplan: tool "mcp.audit.add": names starting with "mcp." are MCP servers\' tools',
    );
  });

  it.each([
    ['', 'a name is letters, digits'],
    ['has space', 'a name is letters, digits'],
    ['a{{b}}', 'a name is letters, digits'],
  ])('refuses a team tool named %j, saying what a name is', (name, message) => {
    expect(() => toolSource([tool(name)])).toThrow(`edgeplan: tool "${name}": ${message}`);
  });

  it('refuses a team tool without a version, a run function or a zod input', () => {
    const { version: _, ...unversioned } = tool('team.a');
    expect(() => toolSource([unversioned as AnyTool])).toThrow('edgeplan: tool "team.a": give it a version');
    expect(() => toolSource([{ ...tool('team.b'), run: undefined } as unknown as AnyTool])).toThrow(
      'edgeplan: tool "team.b": run must be a function',
    );
    expect(() =>
      toolSource([{ ...tool('team.c'), input: { type: 'object' } } as unknown as AnyTool]),
    ).toThrow('edgeplan: tool "team.c": input must be a zod schema');
    expect(() => toolSource([tool('crm_v2.lookup-by:id')])).not.toThrow();
  });

  it('refuses two team tools with one name', () => {
    expect(() => toolSource([tool('team.greet'), tool('team.greet')])).toThrow(
      'edgeplan: tool "team.greet" is given twice',
    );
  });
});

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, describeTool } from '../../src/executor/registry';
import { executeTool } from '../../src/executor/run-step';
import { zodFromJsonSchema } from '../../src/mcp/json-schema';
import { unknownKeys } from '../../src/plan/parameter-keys';
import { createToolRegistry } from '../../src/executor/tools/index';

describe('tool registry in plain Node', () => {
  it('loads without the Workers runtime and lists the demo pack only when DEMO_TOOLS is "true"', () => {
    expect(createToolRegistry({}).names()).toEqual(['agent.message', 'http.request', 'llm.call']);
    expect(createToolRegistry({ DEMO_TOOLS: 'true' }).names()).toEqual([
      'agent.message',
      'demo.counter',
      'demo.echo',
      'demo.flaky',
      'demo.sleep',
      'http.request',
      'llm.call',
    ]);
  });

  it('describes every tool with JSON schemas for input and declared output', () => {
    const described = createToolRegistry({ DEMO_TOOLS: 'true' }).describe();
    const counter = described.find((d) => d.name === 'demo.counter');
    expect(counter?.output_schema).toMatchObject({
      properties: { key: { type: 'string' }, value: { type: 'integer' } },
    });
    const http = described.find((d) => d.name === 'http.request');
    expect(http?.input_schema).toMatchObject({ required: ['url'] });
  });

  it('lists a z.object input as closed (additionalProperties: false), at every level, and an open one as open', () => {
    const input = z.object({
      query: z.string(),
      options: z.object({ max: z.number() }).optional(),
      filters: z.array(z.object({ field: z.string() })),
      meta: z.looseObject({}),
      tags: z.record(z.string(), z.string()),
    });
    const tool = defineTool({
      name: 'team.search',
      description: 'search',
      version: '1',
      input,
      idempotent: true,
      deterministic: true,
      run: () => Promise.resolve(null),
    });
    const listed = describeTool(tool).input_schema as Record<string, unknown>;
    expect(listed).toMatchObject({
      additionalProperties: false,
      properties: {
        options: { additionalProperties: false },
        filters: { items: { additionalProperties: false } },
        meta: { additionalProperties: {} },
        tags: { additionalProperties: { type: 'string' } },
      },
    });
    // Read back (a client, an MCP host): the same keys are refused as validation refuses.
    const value = {
      query: 'q',
      options: { maxx: 1 },
      filters: [{ feild: 'a' }],
      meta: { any: 1 },
      tags: { t: 'x' },
    };
    expect(unknownKeys(zodFromJsonSchema(listed), value).found.map((u) => u.path)).toEqual(
      unknownKeys(input, value).found.map((u) => u.path),
    );
    expect(unknownKeys(input, value).found.map((u) => u.path)).toEqual([
      ['options', 'maxx'],
      ['filters', 0, 'feild'],
    ]);
  });

  it('fails demo.counter with demo_counters_unavailable when there is no COUNTERS binding', async () => {
    const counter = createToolRegistry({ DEMO_TOOLS: 'true' }).get('demo.counter')!;
    const outcome = await executeTool(
      counter,
      { key: 'k' },
      {
        runId: 'r',
        stepId: 's',
        attempt: 1,
        idempotencyKey: 'r:s:1',
        env: {},
        timeoutMs: 1_000,
      },
    );
    expect(outcome).toMatchObject({
      success: false,
      error: { code: 'demo_counters_unavailable', retryable: false },
    });
  });
});

import { describe, expect, it } from 'vitest';
import { executeTool } from '../../src/executor/run-step';
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

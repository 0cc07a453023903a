import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { beginAttempt } from '../../src/engine/begin-attempt';
import { MAX_PARAMETER_BYTES, utf8Bytes } from '../../src/engine/value-limits';
import { defineTool, ToolRegistry } from '../../src/executor/registry';
import { LocalRunner } from '../../src/library/local-runner';
import { parseRunConfig, RunConfigSchema } from '../../src/plan/config';
import { echo, harness } from './engine-helpers';
import { step } from './library-helpers';

const KIB = 1024;
const MIB = 1024 * KIB;
/** A string whose JSON text (with its quotes) takes exactly `bytes` bytes. */
const jsonOfSize = (bytes: number) => 'x'.repeat(bytes - 2);

describe('utf8Bytes', () => {
  it('counts what TextEncoder would, for ASCII, two-, three- and four-byte characters', () => {
    for (const s of ['', 'abc', 'é', 'ü€', '€uro', '😀', 'a😀é€', '\u07ff\u0800\uffff']) {
      expect(utf8Bytes(s)).toBe(new TextEncoder().encode(s).length);
    }
  });
});

describe('config.max_output_bytes', () => {
  it('defaults to 1 MiB', () => {
    expect(parseRunConfig({}).max_output_bytes).toBe(MIB);
  });

  it('refuses values it cannot honour, saying what is allowed', () => {
    const issue = (v: unknown) =>
      RunConfigSchema.safeParse({ max_output_bytes: v }).error?.issues[0]?.message;
    expect(issue(17 * MIB)).toMatch(/at most 16777216 \(16 MiB\)/);
    expect(issue(100)).toMatch(/at least 1024 bytes/);
    expect(issue(1536.5)).toMatch(/whole number of bytes/);
    expect(issue('big')).toMatch(/whole number of bytes/);
    expect(parseRunConfig({ max_output_bytes: 16 * MIB }).max_output_bytes).toBe(16 * MIB);
  });
});

describe('output limit (engine)', () => {
  it('records an output over the limit as a failed attempt with output_too_large, and stores nothing', () => {
    const h = harness({ steps: [echo('a')] }, { max_output_bytes: 4 * KIB, retry_failed_steps: 0 });
    h.ok('a', jsonOfSize(4 * KIB + 1));
    const returned = h.events.find((e) => e.event_type === 'ToolReturned')!;
    expect(returned.payload).toMatchObject({ success: false, error: { code: 'output_too_large' } });
    expect(returned.payload).not.toHaveProperty('output');
    const message = (returned.payload as { error: { message: string } }).error.message;
    expect(message).toContain('"a"');
    expect(message).toContain(`${4 * KIB + 1} bytes`);
    expect(message).toContain(`limit of ${4 * KIB} bytes`);
    expect(message).toContain('config.max_output_bytes');
    expect(h.state.status).toBe('failed');
    expect(h.results.getOutput('a').found).toBe(false);
  });

  it('does not tell a run already at the 16 MiB ceiling to raise max_output_bytes', () => {
    const h = harness({ steps: [echo('a')] }, { max_output_bytes: 16 * MIB, retry_failed_steps: 0 });
    h.ok('a', jsonOfSize(16 * MIB + 1));
    const message = h.state.steps.get('a')!.error!.message;
    expect(message).toContain(`limit of ${16 * MIB} bytes`);
    expect(message).toContain('already the most a run allows');
    expect(message).not.toContain('raise it');
  });

  it('accepts an output of exactly the limit, counted in UTF-8 bytes', () => {
    const h = harness({ steps: [echo('a'), echo('b')] }, { max_output_bytes: 4 * KIB });
    h.ok('a', jsonOfSize(4 * KIB));
    // 1366 three-byte characters and quotes: 4,100 bytes in 1,368 UTF-16 units.
    h.ok('b', '€'.repeat(1366));
    expect(h.status('a')).toBe('completed');
    expect(h.machine.state.steps.get('b')!.error?.code).toBe('output_too_large');
  });

  it('is not retried (the call succeeded: another would repeat it); the fallback deals with it', () => {
    const h = harness(
      { steps: [echo('a', { fallback_action: 'demo.summary' })] },
      { max_output_bytes: 2 * KIB, retry_failed_steps: 1, retry_delay: 1 },
    );
    h.ok('a', jsonOfSize(3 * KIB));
    expect(h.types()).not.toContain('StepRetried');
    const fallback = h.commands.filter((c) => c.type === 'dispatch' && c.fallback);
    expect(fallback).toHaveLength(1);
    h.ok('a', 'short');
    expect(h.state.status).toBe('completed');
    expect(h.state.final_output).toBe('short');
  });

  it('applies to an answer given to a step that waits for a person', () => {
    const h = harness({ steps: [echo('a')] }, { max_output_bytes: 2 * KIB, retry_failed_steps: 0 });
    h.machine.handle({ type: 'await_input', step_id: 'a', attempt: 1, prompt: 'say' });
    const r = h.machine.handle({ type: 'input', input: jsonOfSize(3 * KIB) });
    const returned = r.events.find((e) => e.event_type === 'ToolReturned');
    expect(returned?.payload).toMatchObject({ success: false, error: { code: 'output_too_large' } });
  });
});

describe('parameter limit (engine)', () => {
  const tools = new ToolRegistry([
    defineTool({
      name: 'demo.echo',
      description: 'echo',
      version: '1',
      input: z.record(z.string(), z.unknown()),
      idempotent: true,
      deterministic: true,
      run: (i) => Promise.resolve(i),
    }),
  ]);

  it('fails an attempt whose resolved parameters are over the limit before invoking it', () => {
    const ref = '{{ steps.a.output }}';
    const h = harness(
      {
        steps: [
          echo('a'),
          { id: 'b', action: 'demo.echo', parameters: { x: ref, y: ref }, dependencies: ['a'] },
        ],
      },
      { max_output_bytes: 16 * MIB, retry_failed_steps: 0 },
    );
    h.ok('a', jsonOfSize(9 * MIB));
    const r = beginAttempt(h.state, h.results, tools, 'b', 1, h.now());
    expect(r.begun).toBeNull();
    expect(r.inputs).toHaveLength(1);
    expect(r.inputs[0]).toMatchObject({
      type: 'result',
      outcome: { success: false, error: { code: 'parameters_too_large', retryable: false } },
    });
    expect(r.reason).toContain(`limit of ${MAX_PARAMETER_BYTES} bytes`);
    h.machine.handle(r.inputs[0]!);
    expect(h.status('b')).toBe('failed');
    expect(h.types()).not.toContain('ToolInvoked');
  });
});

describe('output limit (in-process runner)', () => {
  it('fails the step with output_too_large and keeps the run going to its failure strategy', async () => {
    const big = defineTool({
      name: 't.big',
      description: 'Returns n characters',
      version: '1',
      input: z.object({ n: z.number() }),
      idempotent: true,
      deterministic: true,
      run: ({ n }) => Promise.resolve('y'.repeat(n)),
    });
    const runner = new LocalRunner({ tools: [big] });
    runner.start({
      plan: { steps: [step('a', 't.big', { n: 5000 }), step('b', 't.big', { n: 10 })] },
      config: { max_output_bytes: 4 * KIB, retry_failed_steps: 0, continue_on_failure: true },
    });
    const end = await runner.done();
    expect(end.steps.a).toMatchObject({ status: 'failed', error: { code: 'output_too_large' } });
    expect(end.step_results.b).toBe('y'.repeat(10));
  });
});

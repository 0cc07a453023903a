import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { ToolError } from '../../src/errors';
import { defineTool, type AnyTool } from '../../src/executor/registry';
import { executeTool, type ExecuteContext } from '../../src/executor/run-step';

const ctx = (over: Partial<ExecuteContext> = {}): ExecuteContext => ({
  runId: 'run_1',
  stepId: 's1',
  attempt: 1,
  idempotencyKey: 'run_1:s1:1',
  env: {},
  timeoutMs: 1_000,
  ...over,
});

const tool = (over: Partial<AnyTool> & Pick<AnyTool, 'run'>): AnyTool =>
  defineTool({
    name: 'test.tool',
    description: 'test',
    version: '1',
    input: z.object({ n: z.number().optional() }),
    idempotent: true,
    deterministic: true,
    ...over,
  });

afterEach(() => {
  vi.useRealTimers();
});

describe('executeTool', () => {
  it('returns the output of a successful tool with its latency', async () => {
    const outcome = await executeTool(
      tool({ run: ({ n }) => Promise.resolve({ doubled: n * 2 }) }),
      { n: 21 },
      ctx(),
    );
    expect(outcome).toMatchObject({ success: true, output: { doubled: 42 } });
    expect(outcome.latency_ms).toBeGreaterThanOrEqual(0);
  });

  it('rejects parameters that do not match the input schema, naming the field path, without running the tool', async () => {
    const run = vi.fn();
    const t = tool({
      input: z.object({ items: z.array(z.object({ url: z.string() })) }),
      run,
    });
    const outcome = await executeTool(t, { items: [{ url: 1 }] }, ctx());
    expect(outcome.success).toBe(false);
    if (outcome.success) return;
    expect(outcome.error.code).toBe('invalid_parameters');
    expect(outcome.error.retryable).toBe(false);
    expect(outcome.error.message).toContain('test.tool');
    expect(outcome.error.message).toContain('items[0].url');
    expect(run).not.toHaveBeenCalled();
  });

  it('fails with a retryable timeout naming the limit when a tool never settles and ignores its signal', async () => {
    const t = tool({ run: () => new Promise(() => {}) });
    const outcome = await executeTool(t, {}, ctx({ timeoutMs: 20 }));
    expect(outcome).toMatchObject({
      success: false,
      error: { code: 'timeout', retryable: true, message: 'test.tool timed out after 20 ms' },
    });
  });

  it('aborts the signal handed to the tool when the deadline passes', async () => {
    vi.useFakeTimers();
    let seen: AbortSignal | undefined;
    const t = tool({
      run: (_input, c) => {
        seen = c.signal;
        return new Promise(() => {});
      },
    });
    const pending = executeTool(t, {}, ctx({ timeoutMs: 60_000 }));
    await vi.advanceTimersByTimeAsync(59_999);
    expect(seen?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const outcome = await pending;
    expect(seen?.aborted).toBe(true);
    expect(outcome).toMatchObject({ success: false, error: { code: 'timeout' } });
  });

  it('fails with a non-retryable cancelled when the outer signal aborts', async () => {
    const outer = new AbortController();
    const t = tool({ run: () => new Promise(() => {}) });
    const pending = executeTool(t, {}, ctx({ signal: outer.signal, timeoutMs: 10_000 }));
    outer.abort(new Error('run cancelled by user'));
    expect(await pending).toMatchObject({
      success: false,
      error: {
        code: 'cancelled',
        retryable: false,
        message: 'test.tool was cancelled: run cancelled by user',
      },
    });
  });

  it('does not start the tool when the outer signal is already aborted', async () => {
    const run = vi.fn(() => Promise.resolve('ran'));
    const outcome = await executeTool(
      tool({ run }),
      {},
      ctx({ signal: AbortSignal.abort('cancelled by user') }),
    );
    expect(outcome).toMatchObject({ success: false, error: { code: 'cancelled', retryable: false } });
    expect(run).not.toHaveBeenCalled();
  });

  it('keeps the code and retryable flag of a ToolError', async () => {
    const t = tool({
      run: () => Promise.reject(new ToolError('quota', 'out of quota', { retryable: false })),
    });
    expect(await executeTool(t, {}, ctx())).toMatchObject({
      success: false,
      error: { code: 'quota', message: 'out of quota', retryable: false },
    });
  });

  it('turns a synchronous throw or a thrown non-Error into a failed outcome instead of throwing', async () => {
    const sync = tool({
      run: () => {
        throw new Error('boom');
      },
    });
    expect(await executeTool(sync, {}, ctx())).toMatchObject({
      success: false,
      error: { code: 'tool_error', message: 'boom' },
    });
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the case under test
    const weird = tool({ run: () => Promise.reject('nope') });
    expect(await executeTool(weird, {}, ctx())).toMatchObject({ success: false, error: { message: 'nope' } });
    // A thrown object keeps what it says (it read "[object Object]").
    const object = tool({
      run: () => {
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- the case under test
        throw { code: 'E_OBJ', detail: 42 };
      },
    });
    expect(await executeTool(object, {}, ctx())).toMatchObject({
      success: false,
      error: { code: 'tool_error', message: 'threw {"code":"E_OBJ","detail":42}' },
    });
    const nothing = tool({
      run: () => {
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- the case under test
        throw null;
      },
    });
    expect(await executeTool(nothing, {}, ctx())).toMatchObject({ error: { message: 'threw null' } });
  });

  it('asks again after an output that breaks the schema only when a repeat is harmless and may differ', async () => {
    const lying = (over: Partial<AnyTool>) =>
      tool({
        output: z.object({ value: z.number() }),
        run: () => Promise.resolve({ value: 'one' }),
        ...over,
      });
    const retryable = async (over: Partial<AnyTool>) => {
      const outcome = await executeTool(lying(over), {}, ctx());
      return !outcome.success && outcome.error.retryable;
    };
    // The call succeeded; a non-idempotent tool (an MCP tool without hints, say) was called again.
    expect(await retryable({ idempotent: false, deterministic: false })).toBe(false);
    expect(await retryable({ idempotent: true, deterministic: true })).toBe(false);
    expect(await retryable({ idempotent: true, deterministic: false })).toBe(true);
  });

  it('rejects an output that does not match the declared output schema', async () => {
    const t = tool({ output: z.object({ value: z.number() }), run: () => Promise.resolve({ value: 'one' }) });
    const outcome = await executeTool(t, {}, ctx());
    expect(outcome).toMatchObject({ success: false, error: { code: 'invalid_output', retryable: false } });
    if (!outcome.success) expect(outcome.error.message).toContain('value');
  });

  it('returns outputs as JSON would read them back: undefined as null, dates as strings, undefined fields dropped', async () => {
    const nothing = await executeTool(tool({ run: () => Promise.resolve(undefined) }), {}, ctx());
    expect(nothing).toMatchObject({ success: true, output: null });
    const date = new Date('2026-01-02T03:04:05.000Z');
    const rich = await executeTool(
      tool({ run: () => Promise.resolve({ date, gone: undefined, n: 1 }) }),
      {},
      ctx(),
    );
    expect(rich).toMatchObject({ success: true });
    if (rich.success) expect(rich.output).toStrictEqual({ date: '2026-01-02T03:04:05.000Z', n: 1 });
  });

  it('fails with invalid_output when the output cannot be serialised', async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const outcome = await executeTool(tool({ run: () => Promise.resolve(cyclic) }), {}, ctx());
    expect(outcome).toMatchObject({ success: false, error: { code: 'invalid_output' } });
  });

  it('sums reported tokens into the outcome and forwards each report', async () => {
    const reports: unknown[] = [];
    const t = tool({
      run: (_i, c) => {
        c.reportTokens?.({ prompt: 10, completion: 5 });
        c.reportTokens?.({ prompt: 1, completion: 2 });
        return Promise.resolve('ok');
      },
    });
    const outcome = await executeTool(t, {}, ctx({ reportTokens: (x) => reports.push(x) }));
    expect(outcome).toMatchObject({ success: true, tokens: { prompt: 11, completion: 7 } });
    expect(reports).toHaveLength(2);
  });

  it('passes the idempotency key and env through to the tool', async () => {
    const t = tool({ run: (_i, c) => Promise.resolve({ key: c.idempotencyKey, env: c.env.X }) });
    const outcome = await executeTool(t, {}, ctx({ env: { X: 'y' } }));
    expect(outcome).toMatchObject({ success: true, output: { key: 'run_1:s1:1', env: 'y' } });
  });
});

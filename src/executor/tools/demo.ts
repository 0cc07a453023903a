/**
 * The demo pack (SPEC §4), registered when `DEMO_TOOLS=true`: tools that make retries, timeouts,
 * parallelism and exactly-once visible without touching the network.
 */
import { z } from 'zod';
import { ToolError } from '../../errors';
import { defineTool, type AnyTool } from '../registry';
import { demoCounters } from './demo-counters-client';

/** Returns its parameters unchanged. */
export const demoEcho = defineTool({
  name: 'demo.echo',
  description: 'Returns its parameters unchanged.',
  version: '1',
  input: z.record(z.string(), z.unknown()),
  output: z.record(z.string(), z.unknown()),
  idempotent: true,
  deterministic: true,
  estimated_latency_ms: 1,
  estimated_tokens: 0,
  // Microseconds of work: carried out in the run's object, no queue hop.
  placement: 'object',
  run: (input) => Promise.resolve(input),
});

/** Waits `ms` (stopping early when the step is aborted), then returns `value` or `null`. */
export const demoSleep = defineTool({
  name: 'demo.sleep',
  description: 'Waits `ms` milliseconds, then returns `value` (or null).',
  version: '1',
  input: z.object({
    ms: z.number().int().min(0).max(300_000),
    value: z.unknown().optional(),
  }),
  idempotent: true,
  // Not cacheable: serving it from the step-result cache would hide the wait it demonstrates.
  deterministic: false,
  // The latency is the `ms` parameter (when it is a number, not a reference).
  estimate_latency_ms: (p) => (typeof p.ms === 'number' ? p.ms : undefined),
  estimated_tokens: 0,
  // A timer: waiting takes no CPU, so the run's object waits itself, with no queue hop.
  placement: 'object',
  run: async ({ ms, value }, ctx) => {
    await sleep(ms, ctx.signal);
    return value ?? null;
  },
});

/**
 * Fails the first `fail_times` attempts per key, then succeeds with the attempt number. Attempts are
 * counted durably in the DemoCounters object, so they survive isolates and restarts. The key defaults
 * to `<run>:<step>`; `permanent` makes the failures non-retryable (straight to the fallback).
 */
export const demoFlaky = defineTool({
  name: 'demo.flaky',
  description:
    'Fails the first `fail_times` attempts per `key` (default: this run and step), then returns {attempts}. ' +
    '`permanent: true` makes the failures non-retryable.',
  version: '1',
  input: z.object({
    fail_times: z.number().int().min(0).max(1000),
    key: z.string().min(1).max(200).optional(),
    permanent: z.boolean().optional(),
  }),
  output: z.object({ attempts: z.number().int() }),
  idempotent: true,
  deterministic: false,
  estimated_latency_ms: 10,
  estimated_tokens: 0,
  run: async ({ fail_times, key, permanent }, ctx) => {
    const k = key ?? `${ctx.runId}:${ctx.stepId}`;
    const attempts = await demoCounters(ctx.env).flakyAttempt(k);
    if (attempts <= fail_times) {
      throw new ToolError(
        'demo_flaky',
        `demo.flaky: attempt ${attempts} of "${k}" fails (fail_times: ${fail_times})`,
        {
          retryable: !permanent,
        },
      );
    }
    return { attempts };
  },
});

/**
 * Increments a durable counter and returns it. Applied at most once per idempotency key: a second
 * call for the same attempt returns the first call's value — the exactly-once witness. `delay_ms`
 * waits after the increment, leaving a window in which the side effect happened but is not reported.
 */
export const demoCounter = defineTool({
  name: 'demo.counter',
  description:
    'Increments the durable counter `key` once per idempotency key and returns {key, value}; ' +
    '`delay_ms` waits after the increment.',
  version: '1',
  input: z.object({
    key: z.string().min(1).max(200),
    delay_ms: z.number().int().min(0).max(60_000).optional(),
  }),
  output: z.object({ key: z.string(), value: z.number().int() }),
  idempotent: true,
  deterministic: false,
  estimated_latency_ms: 10,
  estimated_tokens: 0,
  run: async ({ key, delay_ms }, ctx) => {
    const { value } = await demoCounters(ctx.env).increment(key, ctx.idempotencyKey);
    if (delay_ms) await sleep(delay_ms, ctx.signal);
    return { key, value };
  },
});

/** The whole demo pack, in registration order. */
export const demoTools: readonly AnyTool[] = [demoEcho, demoSleep, demoFlaky, demoCounter];

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * How the demo tools (and tests) reach the {@link DemoCounters} Durable Object. Imports it as a type
 * only, so the tool registry still loads in plain Node where `cloudflare:workers` does not exist.
 */
import { ToolError } from '../../errors';
import type { DemoCounters } from './demo-counters';

/** The one instance every demo counter lives in. */
export const DEMO_COUNTERS_INSTANCE = 'demo';

/** Anything carrying the `COUNTERS` binding: the Worker's `env` or a tool's `ctx.env`. */
export type CountersEnv = { readonly COUNTERS?: unknown };

/**
 * The stub of the shared counters object, or a non-retryable `demo_counters_unavailable` when the
 * binding is missing (e.g. the registry is used outside a Worker).
 */
export function demoCounters(env: CountersEnv): DurableObjectStub<DemoCounters> {
  const ns = env.COUNTERS;
  if (!isNamespace(ns)) {
    throw new ToolError(
      'demo_counters_unavailable',
      'The demo tools need the COUNTERS Durable Object binding (class DemoCounters in wrangler.toml), ' +
        'and it is not bound here',
      { retryable: false },
    );
  }
  return ns.getByName(DEMO_COUNTERS_INSTANCE);
}

/**
 * Reads a `demo.counter` value — how tests check whether a side effect ran twice.
 * @example expect(await readDemoCounter(env, 'charge')).toBe(1);
 */
export async function readDemoCounter(env: CountersEnv, key: string): Promise<number> {
  return demoCounters(env).get(key);
}

function isNamespace(value: unknown): value is DurableObjectNamespace<DemoCounters> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { getByName?: unknown }).getByName === 'function'
  );
}

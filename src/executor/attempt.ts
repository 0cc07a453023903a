/**
 * One attempt of one step, wherever it runs (the queue consumer or inline in the run's Durable
 * Object): the step-result cache for deterministic, cacheable tools, then the tool itself.
 */
import { z } from 'zod';
import { executeTool, type StepOutcome } from './run-step';
import type { AnyTool, ToolContext } from './registry';

/** Where deterministic results are cached; a KV namespace in a Worker. */
export type ResultCache = {
  get(key: string, type: 'json'): Promise<unknown>;
  put(key: string, value: string, opts?: { expirationTtl?: number }): Promise<void>;
};

export type AttemptRequest = {
  tool: AnyTool;
  parameters: Record<string, unknown>;
  context: Omit<ToolContext, 'signal'>;
  timeoutMs: number;
  /** The step's configured time limit, which a timeout's message names (run-step.ts). */
  limitMs?: number;
  signal?: AbortSignal;
  cache?: ResultCache;
};

const CACHE_TTL_S = 24 * 3600;

export async function runAttempt(req: AttemptRequest): Promise<StepOutcome & { cached?: boolean }> {
  const key =
    req.cache && req.tool.deterministic && req.tool.cacheable
      ? await cacheKey(req.tool, req.parameters)
      : null;
  if (key && req.cache) {
    const hit = cachedOutput(req.tool, await req.cache.get(key, 'json').catch(() => null));
    if (hit) return { success: true, output: hit.output, latency_ms: 0, cached: true };
  }
  const outcome = await executeTool(req.tool, req.parameters, {
    ...req.context,
    timeoutMs: req.timeoutMs,
    ...(req.limitMs !== undefined ? { limitMs: req.limitMs } : {}),
    signal: req.signal,
  });
  if (key && req.cache && outcome.success) {
    // A cache write that fails costs a future hit, never the step.
    await req.cache
      .put(key, JSON.stringify({ output: outcome.output }), { expirationTtl: CACHE_TTL_S })
      .catch(() => undefined);
  }
  return outcome;
}

/** A cache entry as written: `{output}`, any JSON. */
const CachedEntry = z.object({ output: z.json() });

/**
 * A cached result read back: the entry's shape checked, and its output against the tool's output
 * schema as a fresh result is — an entry written before that schema changed (the tool's `version`
 * not bumped) is a miss, and the tool runs, rather than a result its schema refuses.
 */
function cachedOutput(tool: AnyTool, entry: unknown): { output: unknown } | null {
  const read = CachedEntry.safeParse(entry);
  if (!read.success) return null;
  if (tool.output && !(tool.output as z.ZodType).safeParse(read.data.output).success) return null;
  return { output: read.data.output };
}

async function cacheKey(tool: AnyTool, parameters: Record<string, unknown>): Promise<string> {
  const body = new TextEncoder().encode(stableStringify(parameters));
  const digest = await crypto.subtle.digest('SHA-256', body);
  const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `step-cache:${tool.name}@${tool.version}:${hex}`;
}

/** JSON with object keys sorted, so equal parameters give equal cache keys. */
export function stableStringify(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableStringify).join(',')}]`;
  if (v && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${stableStringify(x)}`).join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

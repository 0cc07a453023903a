/**
 * The step-result cache (executor/attempt.ts): a deterministic, cacheable tool's result is served
 * from the cache on a repeat, and what the cache holds is checked as it is read — an entry of
 * another shape, or one whose output the tool's schema now refuses, is a miss and the tool runs.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runAttempt, type ResultCache } from '../../src/executor/attempt';
import { defineTool, type AnyTool } from '../../src/executor/registry';

/** A KV namespace in memory, as `ResultCache` reads it (`'json'`: parsed, null when absent). */
function memoryCache(): ResultCache & { entries: Map<string, string> } {
  const entries = new Map<string, string>();
  return {
    entries,
    get: (key) => Promise.resolve(entries.has(key) ? (JSON.parse(entries.get(key)!) as unknown) : null),
    put: (key, value) => Promise.resolve(void entries.set(key, value)),
  };
}

function lookup(calls: { n: number }): AnyTool {
  return defineTool({
    name: 'test.lookup',
    description: 'Looks a word up',
    version: '1',
    input: z.object({ word: z.string() }),
    output: z.object({ meaning: z.string() }),
    idempotent: true,
    deterministic: true,
    cacheable: true,
    run: ({ word }) => {
      calls.n++;
      return Promise.resolve({ meaning: `the meaning of ${word}` });
    },
  });
}

const attempt = (tool: AnyTool, cache: ResultCache) =>
  runAttempt({
    tool,
    parameters: { word: 'edge' },
    context: { runId: 'run_c', stepId: 's', attempt: 1, idempotencyKey: 'run_c:s', env: {} },
    timeoutMs: 5_000,
    cache,
  });

describe('the step-result cache', () => {
  it('serves a repeat from the cache, without running the tool again', async () => {
    const calls = { n: 0 };
    const cache = memoryCache();
    const tool = lookup(calls);
    expect(await attempt(tool, cache)).toMatchObject({
      success: true,
      output: { meaning: 'the meaning of edge' },
    });
    expect(await attempt(tool, cache)).toMatchObject({
      success: true,
      output: { meaning: 'the meaning of edge' },
      cached: true,
    });
    expect(calls.n).toBe(1);
    expect(cache.entries.size).toBe(1);
  });

  it('runs the tool for an entry it cannot read as a result, or whose output the tool’s schema refuses', async () => {
    for (const stored of [
      {},
      'a string',
      [1, 2],
      { outptu: { meaning: 'x' } },
      { output: { meaning: 42 } },
    ]) {
      const calls = { n: 0 };
      const cache = memoryCache();
      const tool = lookup(calls);
      await attempt(tool, cache); // writes the entry, under the key the next attempt reads
      const [key] = [...cache.entries.keys()];
      cache.entries.set(key!, JSON.stringify(stored));
      const again = await attempt(tool, cache);
      expect({ stored, again }).toMatchObject({
        stored,
        again: { success: true, output: { meaning: 'the meaning of edge' } },
      });
      expect(again).not.toHaveProperty('cached');
      expect(calls.n).toBe(2);
    }
  });
});

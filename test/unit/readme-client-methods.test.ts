/**
 * The README's "Client and CLI" names every method of `edgeplan/client`: a team following a run from a
 * script looks there for what the client can do (getPlanningTrace and deleteRun were left out).
 */
import { describe, expect, it } from 'vitest';
import readme from '../../README.md?raw';
import { createClient } from '../../src/client';

describe('the README on edgeplan/client', () => {
  it('names every method the client has', () => {
    const client = createClient({
      baseUrl: 'http://api.test',
      fetch: () => Promise.reject(new Error('unused')),
    });
    const methods = Object.keys(client).filter(
      (k) => typeof (client as unknown as Record<string, unknown>)[k] === 'function',
    );
    expect(methods).toContain('getPlanningTrace');
    // Named as `name`, or shown called: `watch(runId, …)`.
    const named = (m: string) => readme.includes(`\`${m}\``) || readme.includes(`\`${m}(`);
    expect(methods.filter((m) => !named(m))).toEqual([]);
  });
});

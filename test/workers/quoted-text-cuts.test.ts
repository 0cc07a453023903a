/**
 * Messages that quote someone's text cut it between graphemes (src/text-cut.ts): a key of a plan, a
 * tool name sent over MCP, a URL a step gives. Cut by UTF-16 units, an emoji at the cut left half a
 * surrogate pair in the answer — `"\ud83d"`, text this API itself refuses in a request body.
 */
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { Json } from './helpers';

/** A lone surrogate, as JSON escapes it: a high one not followed by a low one, or a low one alone. */
const LONE_ESCAPE = /\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])|(?<!\\ud[89ab][0-9a-f]{2})\\ud[c-f][0-9a-f]{2}/i;

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await exports.default.fetch(
    new Request(`http://edgeplan.test${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
    }),
  );
  return { status: res.status, text: await res.text() };
}

/** `n` letters, then an emoji whose pair straddles unit `n`, and more. */
const straddling = (n: number) => `${'k'.repeat(n - 1)}😀 and more text after it`;

describe('quoted text cut in messages', () => {
  it('a plan finding quotes an unknown parameter key cut between graphemes', async () => {
    const key = straddling(64);
    const r = await post('/v1/plans/validate', {
      plan: {
        goal: 'g',
        steps: [
          {
            id: 'ask',
            action: 'llm.call',
            parameters: { messages: [{ role: 'user', content: 'hi', [key]: 1 }] },
          },
        ],
      },
    });
    expect(r.status).toBe(200);
    expect(r.text).toContain('k'.repeat(63));
    expect(r.text).not.toMatch(LONE_ESCAPE);
  });

  it('MCP tools/call of an unknown tool quotes its name cut between graphemes', async () => {
    const r = await post(
      '/mcp',
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: straddling(80), arguments: {} } },
      { Accept: 'application/json, text/event-stream' },
    );
    const body = JSON.parse(r.text) as Json;
    expect(JSON.stringify(body)).toContain('Unknown tool');
    expect(r.text).toContain('k'.repeat(79));
    expect(r.text).not.toMatch(LONE_ESCAPE);
  });
});

/**
 * The Worker's other secret-bearing variables, set wrongly as an operator might (quotes pasted in, a
 * `Bearer ` prefix, a line break, a character a header cannot carry): whatever the Worker answers and
 * logs names the variable, never quotes its value. Through the real Worker (src/worker.ts); the LLM
 * endpoint is a closed loopback port. (WEBHOOK_SECRET: test/unit/approval-webhook.test.ts.)
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SECRET, ask, logged, pieces } from './secret-leaks';

afterEach(() => vi.restoreAllMocks());

describe('API_TOKEN set wrongly', () => {
  it.each([
    ['as set', SECRET],
    ['with quotes pasted in', `"${SECRET}"`],
    ['with a Bearer prefix', `Bearer ${SECRET}`],
    ['with a line break inside', `${SECRET.slice(0, 10)}\n${SECRET.slice(10)}`],
  ])('%s: a refused request is told why, not the token', async (_, apiToken) => {
    const { lines, answers } = await logged(() =>
      ask({ API_TOKEN: apiToken, ALLOW_ANONYMOUS: undefined }, [
        ['GET', '/v1/runs'],
        ['GET', '/v1/tools', undefined, { Authorization: 'Bearer not-the-token' }],
        ['GET', '/v1/tools', undefined, { Authorization: 'Basic bm90OnRoZS10b2tlbg==' }],
        ['POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { Authorization: 'Bearer x' }],
        ['GET', '/health'],
      ]),
    );
    expect(answers.split('\n').map((l) => /→ (\d+)/.exec(l)![1])).toEqual([
      '401',
      '401',
      '401',
      '401',
      '200',
    ]);
    expect(pieces(lines)).toEqual([]);
    expect(pieces(answers)).toEqual([]);
  });
});

describe('OPENAI_API_KEY set wrongly', () => {
  it.each([
    ['with quotes pasted in', `"${SECRET}"`],
    ['with a line break inside', `${SECRET.slice(0, 10)}\n${SECRET.slice(10)}`],
    ['with a character a header cannot carry', `${SECRET}\u00e9\u2028`],
  ])('%s: planning says the LLM failed, never the key', async (_, key) => {
    const { lines, answers } = await logged(() =>
      ask({ OPENAI_API_KEY: key, OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', PLANNER_MODEL: 'm-1' }, [
        ['POST', '/v1/plans', { goal: 'echo hello' }],
        ['POST', '/v1/plans', { goal: 'echo hello', strategy: 'react' }],
      ]),
    );
    expect(answers).not.toMatch(/→ 5\d\d/);
    // The planner called the LLM and the call failed (the trace says so), then fell back to its rules.
    expect(answers.match(/"planner":"llm","outcome":"call_error"/g)).toHaveLength(2);
    expect(pieces(lines)).toEqual([]);
    expect(pieces(answers)).toEqual([]);
  });
});

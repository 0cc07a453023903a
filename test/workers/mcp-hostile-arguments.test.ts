/**
 * Hostile arguments to the `/mcp` tools, sent as raw JSON-RPC: a `run_id` that URL resolution would
 * rewrite (`.`, `..`), and an `idempotency_key`
 * that cannot be a header value (a line break, NUL, a character past U+00FF). Each is a tool error with
 * the code the API gives such a request — never `-32603 Internal error`, and never another route's
 * answer (`get_run` of "." once answered the run list). An argument named `__proto__`, which the SDK
 * drops unseen while the API refuses it as an unknown key, is `-32602 Invalid params`. (A lone
 * surrogate, in an argument as anywhere in a body, is refused before: request-bodies.test.ts.)
 */
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { Json } from './helpers';

const MCP_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
const plan = { goal: 'g', steps: [{ id: 'a', action: 'demo.echo', parameters: { x: 1 } }] };

/** One `tools/call`, its JSON written as given (so a key such as `__proto__` reaches the server as sent). */
async function callTool(name: string, argsJson: string): Promise<{ status: number; body: Json }> {
  const res = await exports.default.fetch(
    new Request('http://edgeplan.test/mcp', {
      method: 'POST',
      headers: MCP_HEADERS,
      body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${name}","arguments":${argsJson}}}`,
    }),
  );
  return { status: res.status, body: await res.json<Json>() };
}

describe('/mcp tools given a run_id no run can have', () => {
  const ids: [string, string][] = [
    ['"."', '"."'],
    ['".."', '".."'],
    ['a path', '"../runs"'],
  ];
  const tools: [string, string][] = [
    ['get_run', ''],
    ['wait_for_run', ',"timeout_s":1'],
    ['get_run_events', ''],
    ['cancel_run', ''],
    ['retry_run', ''],
    ['answer_input', ',"input":"x"'],
    ['approve_run', ',"decision":"approve"'],
    ['replan_run', ',"reason":"r"'],
  ];
  for (const [what, id] of ids) {
    it(`answers each run tool given ${what} with not_found, as the route answers such an id`, async () => {
      for (const [tool, rest] of tools) {
        const r = await callTool(tool, `{"run_id":${id}${rest}}`);
        expect(r.status, tool).toBe(200);
        expect(r.body.error, `${tool}: ${JSON.stringify(r.body.error)}`).toBeUndefined();
        expect(r.body.result, tool).toMatchObject({
          isError: true,
          structuredContent: { error: { code: 'not_found', message: expect.stringMatching(/^No run /) } },
        });
      }
    });
  }

  it('cuts a long run_id in the message, which still says what a run id looks like', async () => {
    const r = await callTool('get_run', JSON.stringify({ run_id: 'x'.repeat(10_000) }));
    const message = r.body.result.structuredContent.error.message as string;
    expect(message.length).toBeLessThan(300);
    expect(message).toContain('"run_"');
  });
});

describe('/mcp start_run given an idempotency_key no header can carry', () => {
  const keys: [string, string][] = [
    ['a line break', '"a\\r\\nb"'],
    ['a NUL', '"a\\u0000b"'],
    ['a character past U+00FF', '"key\\u2028"'],
    ['nothing but spaces', '"   "'],
  ];
  for (const [what, key] of keys) {
    it(`refuses ${what} with invalid_idempotency_key, starting no run`, async () => {
      const r = await callTool('start_run', `{"plan":${JSON.stringify(plan)},"idempotency_key":${key}}`);
      expect(r.status).toBe(200);
      expect(r.body.error, JSON.stringify(r.body.error)).toBeUndefined();
      expect(r.body.result).toMatchObject({
        isError: true,
        structuredContent: {
          error: { code: 'invalid_idempotency_key', message: expect.stringMatching(/^idempotency_key /) },
        },
      });
    });
  }

  it('still takes a quoted key as the header does: the same run as the key unquoted', async () => {
    const key = `k-${crypto.randomUUID()}`;
    const plain = await callTool('start_run', JSON.stringify({ plan, idempotency_key: key }));
    const quoted = await callTool('start_run', JSON.stringify({ plan, idempotency_key: `"${key}"` }));
    const runId = plain.body.result.structuredContent.run_id as string;
    expect(runId).toMatch(/^run_/);
    expect(quoted.body.result.structuredContent.run_id).toBe(runId);
  });
});

describe('/mcp arguments with the key __proto__', () => {
  const calls: [string, string][] = [
    ['start_run', `{"__proto__":{"x":1},"plan":${JSON.stringify(plan)}}`],
    ['answer_input', '{"run_id":"run_abc","__proto__":{"input":"yes"}}'],
    ['wait_for_run', '{"run_id":"run_abc","__proto__":{}}'],
  ];
  for (const [tool, args] of calls) {
    it(`refuses ${tool} with -32602 naming the key, as the API refuses it, starting nothing`, async () => {
      const r = await callTool(tool, args);
      expect(r.body).toEqual({
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: -32602,
          message:
            'Invalid params: params.arguments holds the key "__proto__", which no tool takes: leave it out',
        },
      });
    });
  }

  it('leaves a __proto__ key inside an argument to the route, which refuses it there', async () => {
    const r = await callTool('cancel_run', '{"run_id":"run_abc","reason":{"__proto__":1}}');
    expect(r.body.result).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'invalid_request' } },
    });
  });
});

describe('/mcp answers to a huge unknown tool name or many unknown arguments', () => {
  it('cuts the name it repeats, and lists ten unknown arguments and how many more', async () => {
    const name = await callTool('x'.repeat(1_000_000), '{}');
    expect(name.body.error.code).toBe(-32602);
    expect(name.body.error.message.length).toBeLessThan(600);
    const many = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, 1]));
    const args = await callTool('wait_for_run', JSON.stringify({ run_id: 'run_abc', ...many }));
    const message = args.body.result.structuredContent.error.message as string;
    expect(message).toMatch(/^Unknown arguments "k0", .*"k9", and 49990 more; the arguments are run_id, /);
  });
});

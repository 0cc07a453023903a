/**
 * A malformed `MCP_SERVERS` — JSON whose header values (and URLs) may hold tokens — is reported by
 * where the problem is, never by quoting it: not in a log line (src/log.ts, captured from the
 * console), not in an API response. Through the real Worker (src/worker.ts) with `MCP_SERVERS` set as
 * a deployment would set it; the same for a header secret the runtime cannot send.
 */
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import worker from '../../src/worker';

afterEach(() => vi.restoreAllMocks());

/** A token no redaction pattern knows the shape of (not `sk-…`, `Bearer …`, `token=…`). */
const SECRET = 'Zq7vK2mXw9pL4tRbN8cY';

/** Every run of 5 characters of SECRET that `text` holds: none, when nothing of it is quoted. */
const pieces = (text: string) =>
  [...Array(SECRET.length - 4).keys()].map((i) => SECRET.slice(i, i + 5)).filter((p) => text.includes(p));

/** Everything the Worker logs while `fn` runs (every console method, every argument). */
async function logged(fn: () => Promise<string>): Promise<{ lines: string; answers: string }> {
  const lines: string[] = [];
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const)
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      lines.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '));
    });
  const answers = await fn();
  vi.restoreAllMocks();
  return { lines: lines.join('\n'), answers };
}

/** The answers to what an operator or a client would ask a Worker deployed with `more`, as text. */
async function ask(more: Partial<Env>): Promise<string> {
  const plan = { goal: 'g', steps: [{ id: 'a', action: 'mcp.files.read', parameters: {} }] };
  const requests: [string, string, unknown?][] = [
    ['GET', '/v1/tools'],
    ['GET', '/v1/tools?refresh=true'],
    ['GET', '/health'],
    ['POST', '/v1/plans/validate', { plan }],
    ['POST', '/v1/runs', { plan }],
  ];
  const out: string[] = [];
  for (const [method, path, body] of requests) {
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request(`http://edgeplan.test${path}`, {
        method,
        ...(body ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
      }),
      { ...env, ...more },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    // Never a 5xx: a bad variable leaves the MCP tools out and the rest of the Worker working.
    out.push(`${method} ${path} → ${res.status} ${await res.text()}`);
  }
  return out.join('\n');
}

describe('a malformed MCP_SERVERS holding a secret', () => {
  const entry = (headers: string, url = 'http://127.0.0.1:9/mcp') =>
    `{"name":"files","url":"${url}","headers":{${headers}}}`;

  it.each([
    ['a trailing comma', `[${entry(`"X-Team-Key":"${SECRET}"`)},]`, /MCP_SERVERS is not JSON/],
    ['a value without quotes', `[${entry(`"X-Team-Key":${SECRET}`)}]`, /MCP_SERVERS is not JSON/],
    ['single quotes', `[{'name':'files','headers':{'X-Team-Key':'Bearer ${SECRET}'}}]`, /not JSON/],
    [
      'a URL with a key that is not http(s)',
      `[${entry('', `htps://mcp.example/mcp?key=${SECRET}`)}]`,
      /url must be an http\(s\) URL \(its scheme is htps:\)/,
    ],
    ['the secret as the name', `[{"name":"${SECRET}.x","url":"http://127.0.0.1:9/mcp"}]`, /\.name must be/],
  ])('%s: logged where the problem is, quoted nowhere', async (_, raw, problem) => {
    const { lines, answers } = await logged(() => ask({ MCP_SERVERS: raw }));
    expect(lines).toContain('"event":"mcp_server_config_invalid"');
    expect(lines).toMatch(problem);
    expect(answers).toMatch(/^GET \/v1\/tools → 200 /);
    expect(answers).not.toMatch(/→ 5\d\d/);
    expect(pieces(lines)).toEqual([]);
    expect(pieces(answers)).toEqual([]);
  });

  it('a server whose URL holds its key in the path (hosted MCP servers do) is named, not quoted', async () => {
    const { lines, answers } = await logged(() =>
      ask({ MCP_SERVERS: `[{"name":"files","url":"http://127.0.0.1:9/s/${SECRET}/mcp"}]` }),
    );
    expect(lines).toContain('"event":"mcp_server_not_listed"');
    expect(lines).toContain('MCP server \\"files\\" could not be reached (http://127.0.0.1:9)');
    expect(answers).toMatch(/"unavailable":\[\{"server":"files"/);
    expect(answers).not.toMatch(/→ 5\d\d/);
    expect(pieces(lines)).toEqual([]);
    expect(pieces(answers)).toEqual([]);
  });

  it('a header secret the runtime cannot send (a line break inside) is not quoted either', async () => {
    const { lines, answers } = await logged(() =>
      ask({
        MCP_SERVERS: `[${entry('"X-Team-Key":"${TEAM_KEY}"')}]`,
        TEAM_KEY: `first-line\n${SECRET}`,
      } as Partial<Env>),
    );
    expect(lines).toContain('"event":"mcp_server_not_listed"');
    expect(answers).toMatch(/"unavailable":\[\{"server":"files"/);
    expect(answers).not.toMatch(/→ 5\d\d/);
    expect(pieces(lines)).toEqual([]);
    expect(pieces(answers)).toEqual([]);
  });
});

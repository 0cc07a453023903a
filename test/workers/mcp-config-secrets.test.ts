/**
 * A malformed `MCP_SERVERS` — JSON whose header values (and URLs) may hold tokens — is reported by
 * where the problem is, never by quoting it: not in a log line (src/log.ts, captured from the
 * console), not in an API response. Through the real Worker (src/worker.ts) with `MCP_SERVERS` set as
 * a deployment would set it; the same for a header secret the runtime cannot send.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SECRET, ask as askWorker, logged, pieces } from './secret-leaks';

afterEach(() => vi.restoreAllMocks());

/** The answers to what an operator or a client would ask a Worker deployed with `more`, as text. */
function ask(more: Record<string, unknown>): Promise<string> {
  const plan = { goal: 'g', steps: [{ id: 'a', action: 'mcp.files.read', parameters: {} }] };
  return askWorker(more, [
    ['GET', '/v1/tools'],
    ['GET', '/v1/tools?refresh=true'],
    ['GET', '/health'],
    ['POST', '/v1/plans/validate', { plan }],
    ['POST', '/v1/runs', { plan }],
  ]);
}

describe('a malformed MCP_SERVERS holding a secret', () => {
  const entry = (headers: string, url = 'http://127.0.0.1:9/mcp') =>
    `{"name":"files","url":"${url}","headers":{${headers}}}`;

  it.each([
    [
      'a trailing comma',
      `[${entry(`"X-Team-Key":"${SECRET}"`)},]`,
      /MCP_SERVERS is not JSON \(an unexpected \]: a comma before it\?\)/,
    ],
    [
      'a value without quotes',
      `[${entry(`"X-Team-Key":${SECRET}`)}]`,
      /MCP_SERVERS is not JSON \(a letter or digit where a quote/,
    ],
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
      }),
    );
    expect(lines).toContain('"event":"mcp_server_not_listed"');
    // Said as what it is, a value no header can carry, not as a server that could not be reached.
    const why = 'header X-Team-Key reads ${TEAM_KEY}, whose value holds a line break or a NUL';
    expect(lines).toContain(why);
    expect(lines).toContain('"code":"mcp_config_invalid"');
    expect(answers).toMatch(
      /"unavailable":\[\{"server":"files","reason":"could not be listed: header X-Team-Key reads/,
    );
    expect(answers).not.toMatch(/→ 5\d\d/);
    expect(pieces(lines)).toEqual([]);
    expect(pieces(answers)).toEqual([]);
  });
});

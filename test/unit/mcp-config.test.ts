import { describe, expect, it } from 'vitest';
import { mcpServersFromEnv, parseMcpServers, readMcpServers, resolveHeaders } from '../../src/mcp/config';

/** The error `fn` throws, as {code, message}. */
function thrown(fn: () => unknown): { code?: string; message?: string } {
  try {
    fn();
  } catch (err) {
    return err as { code?: string; message?: string };
  }
  throw new Error('did not throw');
}

describe('MCP_SERVERS', () => {
  it('reads a JSON array of {name, url, headers?}; no variable is no servers', () => {
    expect(
      mcpServersFromEnv({
        MCP_SERVERS: '[{"name":"files","url":"https://mcp.example/mcp","headers":{"x-key":"${KEY}"}}]',
      }),
    ).toEqual([{ name: 'files', url: 'https://mcp.example/mcp', headers: { 'x-key': '${KEY}' } }]);
    expect(mcpServersFromEnv({})).toEqual([]);
    expect(mcpServersFromEnv({ MCP_SERVERS: '' })).toEqual([]);
  });

  it.each([
    ['not JSON', '[{', /MCP_SERVERS is not JSON/],
    ['not an array', '{"name":"a"}', /must be a JSON array/],
    ['an entry that is not an object', '["a"]', /MCP_SERVERS\[0\] must be an object/],
    ['a name with a dot', '[{"name":"a.b","url":"https://x.example"}]', /MCP_SERVERS\[0\]\.name must be/],
    ['no url', '[{"name":"a"}]', /MCP_SERVERS\[0\] \("a"\)\.url must be an http\(s\) URL/],
    ['a non-http url', '[{"name":"a","url":"ftp://x.example"}]', /\("a"\)\.url must be/],
    ['an unknown field', '[{"name":"a","url":"https://x.example","token":"t"}]', /unknown field\(s\): token/],
    [
      'a header that is not a string',
      '[{"name":"a","url":"https://x.example","headers":{"k":1}}]',
      /headers\.k must be a string/,
    ],
    [
      'two servers with one name',
      '[{"name":"a","url":"https://x.example"},{"name":"a","url":"https://y.example"}]',
      /MCP_SERVERS\[1\] \("a"\): another server is already named "a"/,
    ],
  ])('refuses %s with mcp_config_invalid naming the entry', (_, raw, message) => {
    const err = thrown(() => mcpServersFromEnv({ MCP_SERVERS: raw }));
    expect(err.code).toBe('mcp_config_invalid');
    expect(err.message).toMatch(message);
  });

  it('a deployment keeps the well-formed servers and reports each malformed entry', () => {
    const r = readMcpServers({
      MCP_SERVERS:
        '[{"name":"a","url":"https://a.example"},{"name":"b.c","url":"https://b.example"},{"name":"a","url":"https://c.example"},{"name":"d","url":"https://d.example"}]',
    });
    expect(r.servers.map((s) => s.name)).toEqual(['a', 'd']);
    expect(r.problems.map((p) => p.code)).toEqual(['mcp_config_invalid', 'mcp_config_invalid']);
    expect(r.problems[0]!.message).toMatch(/^MCP_SERVERS\[1\]\.name must be/);
    expect(r.problems[1]!.message).toMatch(/^MCP_SERVERS\[2\] \("a"\): another server is already named/);
    // Each names its entry and the name it gives, so the tools it would have had can say why they are missing.
    expect(r.problems.map((p) => p.details)).toEqual([
      { entry: 1, name: 'b.c' },
      { entry: 2, name: 'a' },
    ]);
    expect(readMcpServers({ MCP_SERVERS: '[{"url":"https://a.example"}]' }).problems[0]!.details).toEqual({
      entry: 0,
    });
    for (const raw of ['[{', '{"name":"a"}']) {
      const bad = readMcpServers({ MCP_SERVERS: raw });
      expect(bad.servers).toEqual([]);
      expect(bad.problems).toHaveLength(1);
    }
    expect(readMcpServers({})).toEqual({ servers: [], problems: [] });
  });

  it('takes the programmatic option through the same checks', () => {
    expect(parseMcpServers([{ name: 'a', url: 'http://127.0.0.1:1/mcp' }])).toEqual([
      { name: 'a', url: 'http://127.0.0.1:1/mcp' },
    ]);
    expect(thrown(() => parseMcpServers([{ name: '', url: 'x' }])).code).toBe('mcp_config_invalid');
  });
});

describe('header secrets', () => {
  const server = { name: 'a', url: 'https://x.example', headers: { Authorization: 'Bearer ${MCP_TOKEN}' } };

  it('replaces ${NAME} with the env secret', () => {
    expect(resolveHeaders(server, { MCP_TOKEN: 's3cret' })).toEqual({ Authorization: 'Bearer s3cret' });
  });

  it('names the server and the variable, never a value, when the secret is not set', () => {
    const err = thrown(() => resolveHeaders(server, {}));
    expect(err).toMatchObject({
      code: 'mcp_config_invalid',
      message: 'MCP server "a": header Authorization reads ${MCP_TOKEN}, which is not set',
    });
  });
});

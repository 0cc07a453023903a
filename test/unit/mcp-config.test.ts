import fc from 'fast-check';
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

/** A token no redaction pattern knows the shape of (not `sk-…`, `Bearer …`, `token=…`). */
const SECRET = 'Zq7vK2mXw9pL4tRbN8cY';

/** Every run of 5 characters of `secret` that `text` holds: none, when nothing of it is quoted. */
const pieces = (text: string, secret = SECRET) =>
  [...Array(secret.length - 4).keys()].map((i) => secret.slice(i, i + 5)).filter((p) => text.includes(p));

/** The messages of every problem `raw` has, as a deployment reads it. */
const problemsOf = (raw: string) => readMcpServers({ MCP_SERVERS: raw }).problems.map((p) => p.message);

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
      { entry: 1 }, // a name that is not one is not quoted (it may be a secret in the wrong field)
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

  it('names the variable, never its value, when the value is one no header can carry', () => {
    for (const bad of [`first\n${SECRET}`, `${SECRET}\r\n`, `a\0${SECRET}`]) {
      const err = thrown(() => resolveHeaders(server, { MCP_TOKEN: bad }));
      expect(err).toMatchObject({
        code: 'mcp_config_invalid',
        message: expect.stringMatching(
          /^MCP server "a": header Authorization reads \$\{MCP_TOKEN\}, whose value holds a line break or a NUL/,
        ),
      });
      expect(pieces(err.message!)).toEqual([]);
    }
    const literal = { ...server, headers: { 'X-Key': `one\ntwo` } };
    expect(thrown(() => resolveHeaders(literal, {})).message).toMatch(
      /^MCP server "a": header X-Key holds a line break or a NUL, which no HTTP header can carry/,
    );
  });

  it('names the server and the variable, never a value, when the secret is not set', () => {
    const err = thrown(() => resolveHeaders(server, {}));
    expect(err).toMatchObject({
      code: 'mcp_config_invalid',
      message: 'MCP server "a": header Authorization reads ${MCP_TOKEN}, which is not set',
    });
  });
});

describe('a malformed MCP_SERVERS is never quoted (its header values and URLs may hold secrets)', () => {
  const entry = `{"name":"files","url":"https://mcp.example/mcp","headers":{"X-Team-Key":"${SECRET}"}}`;

  it.each([
    // JSON.parse's own message quotes the text around the mistake ("…Y"}},]" is not valid JSON).
    [
      'a trailing comma',
      `[${entry},]`,
      /^MCP_SERVERS is not JSON \(an unexpected \]: a comma before it\?\): check its quotes/,
    ],
    [
      'a value without quotes',
      `[{"name":"a","url":"https://x.example","headers":{"k":${SECRET}}}]`,
      /not JSON \(a letter or digit where a quote, bracket or comma belongs/,
    ],
    ['single quotes', `[{'name':'a','headers':{'k':'${SECRET}'}}]`, /not JSON \(at line 1, column 3\)/],
    ['text after the array', `[${entry}] ${SECRET}`, /not JSON \(at line 1, column \d+\)/],
    ['a cut-off value', `[{"name":"a","headers":{"k":"${SECRET}`, /not JSON \(at line 1, column \d+\)/],
    ['a cut-off array', `[${entry}`, /^MCP_SERVERS is not JSON \(at line 1, column 98\)/],
    ['only its start', '[', /^MCP_SERVERS is not JSON \(it ends too soon\)/],
    [
      'a URL with a key that is not http(s)',
      `[{"name":"a","url":"htps://x.example/mcp?key=${SECRET}"}]`,
      /url must be an http\(s\) URL \(its scheme is htps:\)/,
    ],
    [
      'a URL that is not one',
      `[{"name":"a","url":"Bearer ${SECRET}"}]`,
      /url must be an http\(s\) URL \(got text that is not an absolute URL\)/,
    ],
    [
      'a URL that is not text',
      `[{"name":"a","url":["${SECRET}"]}]`,
      /url must be an http\(s\) URL \(got an array\)/,
    ],
    [
      'the secret as the name',
      `[{"name":"${SECRET}!","url":"https://x.example"}]`,
      /name must be .* \(character 21 is "!"\)/,
    ],
    [
      'a name too long',
      `[{"name":"${SECRET.repeat(4)}","url":"https://x.example"}]`,
      /\(it is 80 characters long\)/,
    ],
    [
      'the secret as a field name',
      `[{"name":"a","url":"https://x.example","${SECRET} x":1}]`,
      /unknown field\(s\): \(a name of 22 characters\)/,
    ],
    [
      'a header name no header may have',
      `[{"name":"a","url":"https://x.example","headers":{"Bearer ${SECRET}":"x"}}]`,
      /headers has a name no HTTP header may have: \(a name of 27 characters\)/,
    ],
    [
      'a header value that is not text',
      `[{"name":"a","url":"https://x.example","headers":{"k":{"v":"${SECRET}"}}}]`,
      /headers\.k must be a string \(got an object\)/,
    ],
  ])('%s: says where, not what was written', (_, raw, message) => {
    const problems = problemsOf(raw);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(message);
    expect(pieces(problems[0]!)).toEqual([]);
  });

  it('quotes nothing of a header value wherever a well-formed value is cut or broken', () => {
    // Every cut of a well-formed value, and every one with a character put in or taken out: JSON
    // the parser refuses at every kind of place, or entries the checks refuse.
    const raw = `[{"name":"ok","url":"https://ok.example/mcp"},${entry}]`;
    fc.assert(
      fc.property(
        fc.nat(raw.length),
        fc.constantFrom('', ',', '"', "'", '}', ']', '{', ':', ' ', 'x', '\\', '\n'),
        fc.nat(1),
        (at, inserted, drop) => {
          const broken = raw.slice(0, at) + inserted + raw.slice(at + drop);
          const problems = problemsOf(broken).join('\n');
          expect(pieces(problems)).toEqual([]);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

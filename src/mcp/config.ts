/**
 * MCP servers a deployment takes tools from (SPEC §8): the `MCP_SERVERS` variable, a JSON array of
 * `{"name", "url", "headers"?}`, where `${NAME}` in a header value reads the secret `NAME` from the
 * Worker's env. A malformed entry is an `mcp_config_invalid` error naming it; a deployment leaves it
 * out and keeps the others ({@link readMcpServers}). No message quotes the variable's text: its
 * header values (and URLs) may hold tokens, and the messages are logged. They say where the problem
 * is (the entry, the field, a position in the text) and what is wrong, not what was written there —
 * not even the JSON parser's own message, which quotes the text around the mistake.
 */
import { EdgeplanError } from '../errors';

/** One MCP server as configured. Its tools become actions `mcp.<name>.<tool>`. */
export type McpServerConfig = {
  /** Letters, digits, `_` and `-` (no dots, so `mcp.<name>.` prefixes never overlap). */
  name: string;
  /** The server's Streamable HTTP endpoint (http or https). */
  url: string;
  /** Sent with every request; values may hold `${SECRET}` placeholders. */
  headers?: Record<string, string>;
};

const NAME = /^[A-Za-z0-9_-]{1,64}$/;
const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

function invalid(message: string): EdgeplanError {
  return new EdgeplanError('mcp_config_invalid', message);
}

/**
 * Checks a list of server configurations (parsed JSON or the programmatic option); throws at the
 * first bad entry.
 * @example parseMcpServers([{ name: 'files', url: 'https://mcp.example/mcp' }]);
 */
export function parseMcpServers(value: unknown): McpServerConfig[] {
  if (!Array.isArray(value)) throw notAnArray();
  const seen = new Set<string>();
  return value.map((entry: unknown, i) => checkEntry(entry, i, seen));
}

/**
 * Reads `env.MCP_SERVERS` (a JSON string, or already an array); no variable is no servers. Throws
 * `mcp_config_invalid` at the first bad entry.
 * @example mcpServersFromEnv({ MCP_SERVERS: '[{"name":"a","url":"http://127.0.0.1:9/mcp"}]' });
 */
export function mcpServersFromEnv(env: { readonly MCP_SERVERS?: unknown }): McpServerConfig[] {
  const raw = rawServers(env);
  return raw === null ? [] : parseMcpServers(raw);
}

/** Which `MCP_SERVERS` entry a problem is about, and the name it gives; absent for the whole variable. */
export type McpConfigProblemDetails = { entry: number; name?: string };

/**
 * A deployment's servers as far as they are well-formed: a bad entry is left out (and reported), the
 * others kept — one typo does not take every server's tools away; each entry's problem carries
 * {@link McpConfigProblemDetails}. A variable that is not a JSON array gives no servers and one problem
 * (without details).
 * @example const { servers, problems } = readMcpServers(env);
 */
export function readMcpServers(env: { readonly MCP_SERVERS?: unknown }): {
  servers: McpServerConfig[];
  problems: EdgeplanError[];
} {
  let raw: unknown;
  try {
    raw = rawServers(env);
  } catch (err) {
    return { servers: [], problems: [err as EdgeplanError] };
  }
  if (raw === null) return { servers: [], problems: [] };
  if (!Array.isArray(raw)) return { servers: [], problems: [notAnArray()] };
  const seen = new Set<string>();
  const servers: McpServerConfig[] = [];
  const problems: EdgeplanError[] = [];
  raw.forEach((entry: unknown, i) => {
    try {
      servers.push(checkEntry(entry, i, seen));
    } catch (err) {
      // The name the entry gives, so what its tools would be called can say why they are missing — only
      // a well-formed one: a bad name may be a secret pasted in the wrong field, and is quoted nowhere.
      const name = (entry as { name?: unknown } | null)?.name;
      const named = typeof name === 'string' && NAME.test(name);
      const details: McpConfigProblemDetails = { entry: i, ...(named ? { name } : {}) };
      problems.push(new EdgeplanError('mcp_config_invalid', (err as Error).message, { details }));
    }
  });
  return { servers, problems };
}

/** The variable as parsed JSON; null when it is not set. */
function rawServers(env: { readonly MCP_SERVERS?: unknown }): unknown {
  const raw = env.MCP_SERVERS;
  if (raw === undefined || raw === null || raw === '') return null;
  if (typeof raw !== 'string') return raw;
  try {
    return JSON.parse(raw) as unknown;
  } catch (err) {
    throw invalid(
      `MCP_SERVERS is not JSON${whereInText(raw, err)}: check its quotes (double quotes only), commas and ` +
        'brackets; the text is not quoted here, as its header values may hold secrets',
    );
  }
}

/**
 * Where in `text` the parser stopped, as ` (at line L, column C)`, from the position its message
 * gives, or what it stopped at when it gives none: a bracket or a quote, not a letter or a digit (a
 * token's). Only that much is taken from the message: the rest quotes `text`.
 */
function whereInText(text: string, err: unknown): string {
  const message = err instanceof Error ? err.message : '';
  const at = /\bposition (\d+)/.exec(message);
  if (!at) {
    if (/Unexpected end of JSON input/.test(message)) return ' (it ends too soon)';
    const token = /^Unexpected token '(.)'/u.exec(message)?.[1] ?? '';
    if (/^[\p{L}\p{N}]$/u.test(token))
      return ' (a letter or digit where a quote, bracket or comma belongs: a value without its double quotes?)';
    if (token === ']' || token === '}') return ` (an unexpected ${token}: a comma before it?)`;
    return /^[\x21-\x7e]$/.test(token) ? ` (an unexpected ${token})` : '';
  }
  const before = text.slice(0, Number(at[1]));
  const line = before.split('\n').length;
  return ` (at line ${line}, column ${before.length - before.lastIndexOf('\n')})`;
}

function notAnArray(): EdgeplanError {
  return invalid('MCP_SERVERS must be a JSON array of {name, url, headers?}');
}

/** Entry `i`, checked; `seen` holds the names taken by the entries before it. */
function checkEntry(entry: unknown, i: number, seen: Set<string>): McpServerConfig {
  const label = `MCP_SERVERS[${i}]`;
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
    throw invalid(`${label} must be an object {name, url, headers?}`);
  const { name, url, headers, ...rest } = entry as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length)
    throw invalid(
      `${label} has unknown field(s): ${extra.map(fieldName).join(', ')} (it takes name, url, headers)`,
    );
  if (typeof name !== 'string' || !NAME.test(name))
    throw invalid(`${label}.name must be 1-64 letters, digits, "_" or "-" (${nameProblem(name)})`);
  const where = `${label} ("${name}")`;
  if (seen.has(name)) throw invalid(`${where}: another server is already named "${name}"`);
  seen.add(name);
  if (typeof url !== 'string' || !isHttpUrl(url))
    throw invalid(`${where}.url must be an http(s) URL (${urlProblem(url)})`);
  const server: McpServerConfig = { name, url };
  if (headers !== undefined) server.headers = checkHeaders(headers, where);
  return server;
}

/**
 * The headers to send, each `${NAME}` replaced by the secret `env.NAME`; a missing secret is an error
 * naming the server and the variable (never its value).
 * @example resolveHeaders(server, { MCP_TOKEN: 's3cret' }); // { authorization: 'Bearer s3cret' }
 */
export function resolveHeaders(
  server: McpServerConfig,
  env: Record<string, unknown>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(server.headers ?? {})) {
    const reads: string[] = [];
    out[key] = value.replace(PLACEHOLDER, (_, variable: string) => {
      const secret = env[variable];
      if (typeof secret !== 'string' || secret === '')
        throw invalid(`MCP server "${server.name}": header ${key} reads \${${variable}}, which is not set`);
      reads.push(`\${${variable}}`);
      return secret;
    });
    // Refused by fetch as "Invalid header value." — which reads as a server that could not be reached.
    if (/[\0\r\n]/.test(out[key])) {
      const from = reads.length ? `reads ${reads.join(', ')}, whose value holds` : 'holds';
      throw invalid(
        `MCP server "${server.name}": header ${key} ${from} a line break or a NUL, which no HTTP header ` +
          'can carry (a secret set with a trailing newline inside quotes, or two values in one?)',
      );
    }
  }
  return out;
}

function checkHeaders(headers: unknown, where: string): Record<string, string> {
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers))
    throw invalid(`${where}.headers must be an object of strings`);
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key))
      throw invalid(`${where}.headers has a name no HTTP header may have: ${fieldName(key)}`);
    if (typeof value !== 'string')
      throw invalid(`${where}.headers.${fieldName(key)} must be a string (got ${kindOf(value)})`);
    out[key] = value;
  }
  return out;
}

/** What is wrong with a name, without quoting it (a misplaced value may be a secret). */
function nameProblem(name: unknown): string {
  if (typeof name !== 'string') return `got ${kindOf(name)}`;
  if (name === '') return 'it is empty';
  if (name.length > 64) return `it is ${name.length} characters long`;
  const chars = [...name];
  const i = chars.findIndex((c) => !/[A-Za-z0-9_-]/.test(c));
  const c = chars[i] ?? '';
  // Only the character a name may not hold: never a letter or a digit.
  const shown = /^[\x20-\x7e]$/.test(c)
    ? `"${c}"`
    : `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  return `character ${i + 1} is ${shown}`;
}

/** What is wrong with a URL, without quoting it: a URL may carry a key in its query or user part. */
function urlProblem(url: unknown): string {
  if (typeof url !== 'string') return `got ${kindOf(url)}`;
  if (!URL.canParse(url)) return 'got text that is not an absolute URL';
  const scheme = new URL(url).protocol;
  return /^[a-z][a-z0-9+.-]{0,15}:$/.test(scheme)
    ? `its scheme is ${scheme}`
    : 'its scheme is not http or https';
}

/** A field or header name as written when it looks like one, else only how long it is. */
function fieldName(key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_-]{0,39}$/.test(key) ? key : `(a name of ${key.length} characters)`;
}

function kindOf(value: unknown): string {
  if (value === undefined) return 'none';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function isHttpUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

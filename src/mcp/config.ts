/**
 * MCP servers a deployment takes tools from (SPEC §8): the `MCP_SERVERS` variable, a JSON array of
 * `{"name", "url", "headers"?}`, where `${NAME}` in a header value reads the secret `NAME` from the
 * Worker's env. A malformed entry is an `mcp_config_invalid` error naming it; a deployment leaves it
 * out and keeps the others ({@link readMcpServers}).
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
      // The name the entry gives (if any), so what its tools would be called can say why they are missing.
      const name = (entry as { name?: unknown } | null)?.name;
      const details: McpConfigProblemDetails = { entry: i, ...(typeof name === 'string' ? { name } : {}) };
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
    throw invalid(`MCP_SERVERS is not JSON: ${(err as Error).message}`);
  }
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
  if (extra.length) throw invalid(`${label} has unknown field(s): ${extra.join(', ')}`);
  if (typeof name !== 'string' || !NAME.test(name))
    throw invalid(`${label}.name must be 1-64 letters, digits, "_" or "-" (got ${JSON.stringify(name)})`);
  const where = `${label} ("${name}")`;
  if (seen.has(name)) throw invalid(`${where}: another server is already named "${name}"`);
  seen.add(name);
  if (typeof url !== 'string' || !isHttpUrl(url))
    throw invalid(`${where}.url must be an http(s) URL (got ${JSON.stringify(url)})`);
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
    out[key] = value.replace(PLACEHOLDER, (_, variable: string) => {
      const secret = env[variable];
      if (typeof secret !== 'string' || secret === '')
        throw invalid(`MCP server "${server.name}": header ${key} reads \${${variable}}, which is not set`);
      return secret;
    });
  }
  return out;
}

function checkHeaders(headers: unknown, where: string): Record<string, string> {
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers))
    throw invalid(`${where}.headers must be an object of strings`);
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) {
    if (typeof value !== 'string') throw invalid(`${where}.headers.${key} must be a string`);
    out[key] = value;
  }
  return out;
}

function isHttpUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

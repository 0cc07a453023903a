/**
 * TEA's `${VAR}` and `${VAR:-default}` in `settings`: which names a workflow reads, and expanding them
 * from the Worker's vars and secrets. The plan and the event log keep the text as written — a value
 * is put in only as a tool is called (src/executor/run-step.ts), so a secret is never stored. Only a
 * parameter that is exactly one `${NAME}` (as `{{ settings.llm.model }}` renders) gets the Worker's
 * value, and only for the names the workflow's settings read; inside longer text only a default is
 * put in, so text that merely contains `${…}` (a model's answer, say) never receives a secret. The
 * Worker's own credentials ({@link isWorkerCredential}) are never put in: they stay as written.
 */
import { isRecord } from './model';

/** The parameter a TEA node's rendered parameters carry the names in (removed before the tool sees them). */
export const ENV_NAMES_PARAM = '$env';

/**
 * The Worker's own credentials, never put into a tool's parameters whatever `settings` read: the API
 * token (which opens every run), the key the planner calls its model with, the secret approval
 * webhooks are signed with, and the MCP servers' configuration (which may hold tokens). A plan reaches
 * the engine from more hands than the operator's — an approval link's Modify, a model's plan — and a
 * `${API_TOKEN}` read into an `http.request` body would hand the whole API to whoever wrote it.
 */
export const WORKER_SECRETS: ReadonlySet<string> = new Set([
  'API_TOKEN',
  'OPENAI_API_KEY',
  'WEBHOOK_SECRET',
  'MCP_SERVERS',
]);

/** `${NAME}` as MCP_SERVERS' header values write it (src/mcp/config.ts). */
const MCP_HEADER_SECRET = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Whether `name` is one of the Worker's own credentials in `env`: one of {@link WORKER_SECRETS}, or a
 * secret an MCP server's headers read (`"Authorization": "Bearer ${FILES_TOKEN}"` in MCP_SERVERS) —
 * what the Worker proves itself to that server with, as API_TOKEN is what callers prove themselves
 * with. Any `${NAME}` in the variable counts, so a malformed MCP_SERVERS still keeps its secrets.
 * @example isWorkerCredential('FILES_TOKEN', { MCP_SERVERS: '[{"headers": {"A": "${FILES_TOKEN}"}}]' }) // true
 */
export function isWorkerCredential(name: string, env: Record<string, unknown>): boolean {
  if (WORKER_SECRETS.has(name)) return true;
  const raw = env.MCP_SERVERS;
  if (raw === undefined || raw === null || raw === '') return false;
  const text = typeof raw === 'string' ? raw : JSON.stringify(raw);
  for (const m of text.matchAll(MCP_HEADER_SECRET)) if (m[1] === name) return true;
  // `wrangler dev` expands `${NAME}` in .dev.vars itself when NAME is set there too: MCP_SERVERS then
  // holds the value, not the name. A value that long in a header is no coincidence (in a URL it may
  // be: HTTP_ALLOWLIST's 127.0.0.1).
  const value = env[name];
  return typeof value === 'string' && value.length >= MIN_SECRET_CHARS && headerValues(raw).includes(value);
}

/** Every header value MCP_SERVERS gives, one a line; the whole text when it is not a JSON array. */
function headerValues(raw: unknown): string {
  let servers: unknown = raw;
  try {
    if (typeof raw === 'string') servers = JSON.parse(raw);
  } catch {
    return String(raw);
  }
  if (!Array.isArray(servers)) return typeof raw === 'string' ? raw : '';
  return servers
    .flatMap((s: unknown) => {
      const headers = isRecord(s) ? s.headers : undefined;
      return isRecord(headers) ? Object.values(headers).filter((v) => typeof v === 'string') : [];
    })
    .join('\n');
}

/** Values shorter than this (`true`, `1`, a port) may be in MCP_SERVERS without being its secret. */
const MIN_SECRET_CHARS = 8;

/**
 * The Worker variables a tool's parameters may read (their {@link ENV_NAMES_PARAM}, the Worker's
 * own credentials left out): a child workflow the tool starts may read no others.
 */
export function settingsEnvOf(params: Record<string, unknown>): string[] {
  const names = params[ENV_NAMES_PARAM];
  if (!Array.isArray(names)) return [];
  return names.filter((n): n is string => typeof n === 'string' && !WORKER_SECRETS.has(n));
}

/**
 * A tool's parameters with whole-string `${NAME}` / `${NAME:-default}` expanded from `env`, for the
 * names in their {@link ENV_NAMES_PARAM}; parameters without it come back unchanged. The top-level
 * parameters named in `kept` stay as written (a planning action's goal: its output stores it).
 * @example expandSettingsParams({ model: '${M:-gpt-4}', $env: ['M'] }, { M: 'gpt-4o' }) // { model: 'gpt-4o' }
 */
export function expandSettingsParams(
  params: Record<string, unknown>,
  env: Record<string, unknown>,
  kept: readonly string[] = [],
): Record<string, unknown> {
  if (!Array.isArray(params[ENV_NAMES_PARAM])) return params;
  const allowed = new Set(settingsEnvOf(params).filter((n) => !isWorkerCredential(n, env)));
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const m = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}$/.exec(v);
      if (m && allowed.has(m[1]!)) {
        const got = env[m[1]!];
        return typeof got === 'string' && got !== '' ? got : (m[2] ?? '');
      }
      // Inside longer text only a default goes in: the Worker's own value stays out of text that a
      // model's answer could have shaped.
      return v.replace(ENV_REF, (whole, name: string, fallback: string | undefined) => {
        if (!allowed.has(name)) return whole;
        const got = env[name];
        return typeof got === 'string' && got !== '' ? whole : (fallback ?? '');
      });
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  const { [ENV_NAMES_PARAM]: _names, ...rest } = params;
  return Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, kept.includes(k) ? v : walk(v)]));
}
/** A tool's parameters without their {@link ENV_NAMES_PARAM}, `${VAR}` left as written. */
export function withoutEnvNames(params: Record<string, unknown>): Record<string, unknown> {
  const { [ENV_NAMES_PARAM]: _names, ...rest } = params;
  return rest;
}

const ENV_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * The names `${…}` reads anywhere in `settings`.
 * @example settingsEnvNames({ llm: { model: '${OPENAI_MODEL:-gpt-4}' } }) // ['OPENAI_MODEL']
 */
export function settingsEnvNames(settings: unknown): string[] {
  const names = new Set<string>();
  const walk = (v: unknown) => {
    if (typeof v === 'string') for (const m of v.matchAll(ENV_REF)) names.add(m[1]!);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(settings);
  return [...names].sort();
}

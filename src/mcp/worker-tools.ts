/**
 * The hook that puts `MCP_SERVERS` tools into a Worker's registry, which is built synchronously:
 * {@link loadMcpTools} (async, at an entry point: a request, the run object's start, a queue batch)
 * lists the servers — KV-cached — and keeps the tools for the isolate; {@link loadedMcpTools} (sync,
 * in the registry builder) hands them over. A malformed `MCP_SERVERS`, or a server that cannot be
 * listed, is logged with its reason and leaves those tools out; the rest of the Worker keeps working.
 * Both, and each tool a server lists that cannot be used, are kept with why ({@link mcpUnavailable},
 * {@link mcpMissingPrefixes}): a misconfigured entry is otherwise only in the Worker's log, and a plan
 * naming its tools would hear "unknown tool" without a word about the typo in MCP_SERVERS.
 */
import type { AnyTool } from '../executor/registry';
import { ToolError } from '../errors';
import { readMcpServers, type McpConfigProblemDetails } from './config';
import { listingsOutdated, MCP_LISTING_TTL_S } from './listing';
import { mcpTools } from './tools';
import { log } from '../log';

/** What the hook reads from the Worker's env. */
export type McpEnv = { readonly MCP_SERVERS?: unknown; readonly KV?: KVNamespace };

/** How long listing every server may take before the ones still unanswered are left out. */
export const LIST_TIMEOUT_MS = 5_000;

/** A server whose last listing failed is asked again after this long, not after the listing TTL. */
export const RELIST_FAILED_MS = 15_000;

/** A tool a server listed that cannot be used, and why. */
type LeftOut = { server: string; tool: string; reason: string };

/**
 * The tools of one `MCP_SERVERS` value, when they expire, each server that could not be listed, and the
 * tools the servers listed that were left out.
 */
type Loaded = {
  tools: AnyTool[];
  until: number;
  /** {@link listingsOutdated} when loaded: a listing found out of date since means load again. */
  outdated: number;
  failures: ReadonlyMap<string, string>;
  leftOut: readonly LeftOut[];
  misconfigured: readonly Misconfigured[];
};

/**
 * A malformed `MCP_SERVERS` entry (`server`: the name it gives if that is a name — a bad one may be a secret in the wrong field — else
 * `MCP_SERVERS[i]`), or the whole
 * variable (`server`: `MCP_SERVERS`); `prefix`: the actions it leaves out (`mcp.` for the variable).
 */
type Misconfigured = { server: string; prefix: string; reason: string };

/** Where a malformed MCP_SERVERS is corrected. */
const FIX_MCP_SERVERS =
  'correct it in MCP_SERVERS (.dev.vars, then restart wrangler dev; deployed: [vars] or the secret)';

function misconfigured(problem: { message: string; details?: unknown }): Misconfigured {
  const at = problem.details as McpConfigProblemDetails | undefined;
  const reason = `is misconfigured: ${problem.message}; ${FIX_MCP_SERVERS}`;
  if (at === undefined) return { server: 'MCP_SERVERS', prefix: 'mcp.', reason };
  const server = at.name ?? `MCP_SERVERS[${at.entry}]`;
  return { server, prefix: at.name === undefined ? 'mcp.' : `mcp.${at.name}.`, reason };
}

/**
 * An MCP server, or one tool of it (`name`, as a plan would call it), that plans cannot use now, and why.
 */
export type McpUnavailable = { server: string; name?: string; reason: string };

// One empty listing, so a registry cached against "no MCP tools" stays valid across calls.
const NONE: AnyTool[] = [];

// Plain data per MCP_SERVERS value. Concurrent first requests each load, but share each server's
// `tools/list` (listing-flight.ts), then the KV cache answers.
const loaded = new Map<string, Loaded>();

function keyOf(env: McpEnv): string | null {
  const raw = env.MCP_SERVERS;
  if (raw === undefined || raw === null || raw === '') return null;
  return typeof raw === 'string' ? raw : JSON.stringify(raw);
}

/**
 * Lists the servers of `env.MCP_SERVERS` unless this isolate did within the listing TTL; never throws.
 * @example await loadMcpTools(env); const registry = workerToolRegistry(env); // has mcp.* tools
 */
export async function loadMcpTools(env: McpEnv, opts: { refresh?: boolean } = {}): Promise<AnyTool[]> {
  const key = keyOf(env);
  if (key === null) return [];
  const hit = loaded.get(key);
  const outdated = listingsOutdated();
  if (hit && !opts.refresh && Date.now() < hit.until && hit.outdated === outdated) return hit.tools;
  let tools: AnyTool[] = hit?.tools ?? [];
  let leftOut: LeftOut[] = [];
  const failures = new Map<string, string>();
  const { servers, problems } = readMcpServers(env);
  for (const p of problems)
    log('mcp_server_config_invalid', `${p.message} (left out; the other servers are kept)`, { code: p.code });
  const wrong = problems.map(misconfigured);
  try {
    const listed = await mcpTools(servers, {
      env: env,
      ...(env.KV ? { kv: env.KV } : {}),
      ...(opts.refresh ? { refresh: true } : {}),
      // Bounded: PlanRun loads inside blockConcurrencyWhile, which resets the object after 30 s.
      signal: AbortSignal.timeout(LIST_TIMEOUT_MS),
      onListError: (server, err) => {
        // The deadline's own words ("The operation was aborted due to timeout") say nothing of what hung.
        const timedOut =
          err.name === 'TimeoutError' ||
          err.name === 'AbortError' ||
          (err instanceof ToolError && err.code === 'timeout');
        const why = timedOut
          ? `did not answer tools/list within ${LIST_TIMEOUT_MS} ms (asked again in ${RELIST_FAILED_MS / 1000} s)`
          : err.message.replace(`MCP server "${server.name}": `, '');
        failures.set(server.name, why);
        log('mcp_server_not_listed', `MCP server "${server.name}" left out: ${why}`, {
          server: server.name,
          error: err,
        });
      },
      onLeftOut: (server, tools) => {
        for (const t of tools) leftOut.push({ server: server.name, tool: t.name, reason: t.reason });
      },
    });
    // A server that could not be listed this time keeps the tools it listed last (a blip does not
    // take them away), and is asked again soon.
    const kept = tools.filter((t) => [...failures.keys()].some((name) => t.name.startsWith(`mcp.${name}.`)));
    tools = [...listed, ...kept];
    leftOut = [...leftOut, ...(hit?.leftOut ?? []).filter((t) => failures.has(t.server))];
  } catch (err) {
    log('mcp_servers_ignored', `MCP_SERVERS ignored: ${(err as Error).message}`, { error: err });
  }
  const until = Date.now() + (failures.size > 0 ? RELIST_FAILED_MS : MCP_LISTING_TTL_S * 1000);
  loaded.set(key, { tools, until, outdated, failures, leftOut, misconfigured: wrong });
  return tools;
}

/**
 * What of `env`'s servers plans cannot use, with why: each malformed `MCP_SERVERS` entry and each
 * server whose last listing failed (no `name`), then each tool a server listed that was left out (its
 * action name, `mcp.<server>.<tool>`).
 * @example mcpUnavailable(env); // [{server: 'files', name: 'mcp.files.ünï', reason: 'MCP tool names are …'}]
 */
export function mcpUnavailable(env: McpEnv): McpUnavailable[] {
  const hit = loadedFor(env);
  if (!hit) return [];
  return [
    ...hit.misconfigured.map(({ server, reason }) => ({ server, reason })),
    ...[...hit.failures].map(([server, error]) => ({ server, reason: `could not be listed: ${error}` })),
    ...hit.leftOut.map((t) => ({ server: t.server, name: `mcp.${t.server}.${t.tool}`, reason: t.reason })),
  ];
}

/**
 * Why actions under a prefix may be missing, most specific first: each server whose last listing failed
 * or whose `MCP_SERVERS` entry is malformed (`mcp.<server>.`), then a malformed variable or an entry
 * without a name (`mcp.`). `reason` follows `MCP server "<server>"`.
 * @example mcpMissingPrefixes(env); // [{prefix: 'mcp.files.', server: 'files', reason: 'could not be listed: …'}]
 */
export function mcpMissingPrefixes(env: McpEnv): { prefix: string; server: string; reason: string }[] {
  const hit = loadedFor(env);
  if (!hit) return [];
  const all = [
    ...[...hit.failures].map(([server, error]) => ({
      prefix: `mcp.${server}.`,
      server,
      reason: `could not be listed: ${error}`,
    })),
    ...hit.misconfigured,
  ];
  return [...all.filter((m) => m.prefix !== 'mcp.'), ...all.filter((m) => m.prefix === 'mcp.')];
}

function loadedFor(env: McpEnv): Loaded | undefined {
  const key = keyOf(env);
  return key === null ? undefined : loaded.get(key);
}

/**
 * The servers of `env` whose last listing failed, each with its error (empty when all answered).
 * @example for (const [server, error] of mcpListingFailures(env)) console.log(server, error);
 */
export function mcpListingFailures(env: McpEnv): ReadonlyMap<string, string> {
  const key = keyOf(env);
  return (key === null ? undefined : loaded.get(key)?.failures) ?? new Map();
}

/**
 * The tools {@link loadMcpTools} last loaded for `env`'s servers ([] before the first load).
 * @example for (const tool of loadedMcpTools(env)) registry.register(tool);
 */
export function loadedMcpTools(env: McpEnv): AnyTool[] {
  const key = keyOf(env);
  return key === null ? NONE : (loaded.get(key)?.tools ?? NONE);
}

/**
 * A server's tool listing (`tools/list`, every page), cached in KV for a few minutes so building a
 * registry does not cost a round trip per server per isolate. The key holds the server's name and a
 * hash of its URL, so pointing a name at another server never serves the old listing.
 *
 * Each listed tool is checked on its own: one the protocol's schema refuses, one whose name MCP does not
 * allow (1-128 of `A-Z a-z 0-9 _ - .`), or a second tool of the same name is left out, logged, and kept
 * in the listing's `leftOut` with why (so a plan naming it, and `GET /v1/tools`, can say); the server's
 * other tools are kept. Descriptions are cut to {@link MAX_DESCRIPTION_CHARS}; a listing stops at
 * {@link MAX_LISTED_TOOLS} tools or {@link MAX_LISTING_CHARS} of definitions.
 *
 * Listings of one server that start together share one `tools/list` (listing-flight.ts).
 *
 * Caching is best effort: a cached listing KV cannot read is listed again, and a listing KV cannot hold (over its 25 MiB value limit, or a write KV refuses
 * or fails) is still returned and used — the isolate keeps it in memory (worker-tools.ts), and the next
 * isolate lists the server again — and is logged as `mcp_listing_not_cached`, so a server whose
 * listing is never cached shows. Nothing that lists tools fails because the cache could not be written.
 */
import { ToolSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { McpServerConfig } from './config';
import { withMcpClient } from './client';
import type { McpConnectOptions } from './connect-options';
import { sharedListing } from './listing-flight';
import { retireSessions } from './session-reuse';
import { forgetStatelessServers } from './stateless-servers';
import { log, type LogFields } from '../log';

/** One tool as the server lists it (the fields edgeplan uses). */
export type McpListedTool = {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; idempotentHint?: boolean };
};

/** A tool the server listed that cannot be used, and why (a sentence saying what to change). */
export type McpLeftOutTool = { name: string; reason: string };

/**
 * What `tools/list` gave for one server, and its version; `leftOut` is absent in listings cached before
 * it was kept.
 */
export type McpListing = {
  server: string;
  version: string;
  tools: McpListedTool[];
  leftOut?: McpLeftOutTool[];
};

/** A listing as KV holds it: checked when read, so an entry of another shape is listed again. */
const CachedListing = z.object({
  server: z.string(),
  version: z.string(),
  tools: z.array(
    z.object({
      name: z.string(),
      title: z.string().optional(),
      description: z.string().optional(),
      inputSchema: z.record(z.string(), z.unknown()),
      outputSchema: z.record(z.string(), z.unknown()).optional(),
      annotations: z
        .object({ readOnlyHint: z.boolean().optional(), idempotentHint: z.boolean().optional() })
        .optional(),
    }),
  ),
  leftOut: z.array(z.object({ name: z.string(), reason: z.string() })).optional(),
});

/**
 * How many times this isolate found a server's listing out of date (a tool it lists no longer there):
 * what the isolate loaded before that is loaded again ({@link noteListingOutdated}).
 */
let outdated = 0;

/**
 * Says a listing this isolate holds is out of date; the fresh one is in KV already.
 * @example noteListingOutdated(); // loadMcpTools lists again (from KV) on its next call
 */
export function noteListingOutdated(): void {
  outdated++;
}

/**
 * A number that changes whenever a listing is found out of date: what was loaded under another one is
 * loaded again.
 * @example const seen = listingsOutdated(); … if (listingsOutdated() !== seen) reload();
 */
export function listingsOutdated(): number {
  return outdated;
}

/** KV's limit on a value (25 MiB): a listing longer than this, as JSON, is not written. */
export const MCP_LISTING_KV_MAX_BYTES = 25 * 1024 * 1024;

/** Default lifetime of a cached listing, in seconds. */
export const MCP_LISTING_TTL_S = 300;
/** KV refuses expirations under a minute. */
const KV_MIN_TTL_S = 60;
/** At most this many `tools/list` pages per server. */
const MAX_PAGES = 50;
/**
 * At most this many of a server's tools are kept; the listing stops there (logged as
 * `mcp_listing_truncated`). Every kept tool's schemas are converted to zod by each isolate that loads
 * them: one page of 100,000 tools (8 MB) took 3 s of CPU and 200 MB, past the isolate's 128 MB.
 */
export const MAX_LISTED_TOOLS = 1000;
/**
 * At most this many characters of a server's tool definitions (as JSON, descriptions cut) are kept:
 * converting a schema costs about half a millisecond a KiB, so few tools with huge schemas are bounded too.
 */
export const MAX_LISTING_CHARS = 1024 * 1024;
/** A tool name as MCP allows it (the SDK's own rule, SEP-986). */
const TOOL_NAME = /^[A-Za-z0-9._-]{1,128}$/;
/** A tool's description is cut here: it is read by the planner with every other tool's. */
export const MAX_DESCRIPTION_CHARS = 4096;
/** At most this many left-out tools are kept per server (the rest are only logged). */
export const MAX_LEFT_OUT = 100;
/** A left-out tool's name is kept up to this many characters (a longer one is not an MCP name anyway). */
const MAX_LEFT_OUT_NAME = 140;

/** One `tools/list` page, its tools unchecked (each is checked on its own). */
const ListingPage = z.object({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });

/**
 * Where listings are cached across isolates: the Worker's KV namespace, or anything with its `get` and
 * `put` (a library user's own cache; none: every listing asks the server).
 */
export type ListingCache = {
  get(key: string, type: 'json'): Promise<unknown>;
  put(key: string, value: string, options: { expirationTtl: number }): Promise<unknown>;
};

export type ListingOptions = McpConnectOptions & {
  kv?: ListingCache;
  /** Seconds a cached listing lives (at least 60); default {@link MCP_LISTING_TTL_S}. */
  ttlSeconds?: number;
  /** Ask the server even when KV has a listing, and store the fresh one. */
  refresh?: boolean;
  /** The longest listing (bytes of JSON) written to KV; default {@link MCP_LISTING_KV_MAX_BYTES}. */
  kvMaxBytes?: number;
};

/**
 * The server's tools: from KV when cached (and `refresh` is not set), else from the server.
 * @example const { tools } = await listMcpTools(server, { headers: {}, kv: env.KV });
 */
export async function listMcpTools(server: McpServerConfig, opts: ListingOptions): Promise<McpListing> {
  const key = await listingKey(server);
  if (opts.kv && !opts.refresh) {
    const cached = readCachedListing(await cachedValue(opts.kv, key, server));
    if (cached) return cached;
  }
  // Keyed by the credentials too: a server may list other tools for another token.
  const flight = `${key}:${await sha256Hex(JSON.stringify(Object.entries(opts.headers).sort()))}`;
  return sharedListing(flight, opts.signal, () => listAndStore(server, key, opts));
}

/** What KV holds under `key`, or null — also when KV cannot be read (logged: the server is asked). */
async function cachedValue(kv: ListingCache, key: string, server: McpServerConfig): Promise<unknown> {
  try {
    return await kv.get(key, 'json');
  } catch (err) {
    log(
      'mcp_listing_cache_unreadable',
      `MCP server "${server.name}": its cached listing could not be read from KV; listing again`,
      { server: server.name, error: err },
    );
    return null;
  }
}

/** Asks the server for every page of its tools, and stores the listing in KV when there is one. */
async function listAndStore(server: McpServerConfig, key: string, opts: ListingOptions): Promise<McpListing> {
  const listing = await withMcpClient(server, opts, async (client) => {
    const tools: McpListedTool[] = [];
    const leftOut: McpLeftOutTool[] = [];
    const names = new Set<string>();
    const leaveOut = (name: unknown, why: string) => {
      const shown = typeof name === 'string' ? name : (JSON.stringify(name) ?? '(no name)');
      const cutName = shown.length > MAX_LEFT_OUT_NAME ? `${shown.slice(0, MAX_LEFT_OUT_NAME)}…` : shown;
      if (leftOut.length < MAX_LEFT_OUT) leftOut.push({ name: cutName, reason: why });
      log(
        'mcp_tool_left_out',
        `MCP server "${server.name}": tool ${JSON.stringify(cutName)} left out: ${why}; the server's other tools are kept`,
        { server: server.name },
      );
    };
    let cursor: string | undefined;
    let chars = 0;
    let full = false;
    for (let page = 0; page < MAX_PAGES && !full; page++) {
      const res = await client.request(
        { method: 'tools/list', params: cursor ? { cursor } : {} },
        ListingPage,
        opts.signal ? { signal: opts.signal } : {},
      );
      for (const raw of res.tools) {
        if (tools.length >= MAX_LISTED_TOOLS) {
          full = true;
          break;
        }
        const name = (raw as { name?: unknown } | null)?.name;
        const parsed = ToolSchema.safeParse(raw);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          // The path may hold the server's own keys (a property name): cut, it is kept and shown.
          const at = issue?.path.map(String).join('.') ?? '';
          const where = at.length > MAX_LEFT_OUT_NAME ? `${at.slice(0, MAX_LEFT_OUT_NAME)}…` : at;
          leaveOut(
            name,
            `its definition is not valid MCP (${where}: ${issue?.message}); fix the tool's definition on the server`,
          );
        } else if (!TOOL_NAME.test(parsed.data.name)) {
          leaveOut(
            name,
            'MCP tool names are 1-128 of A-Z, a-z, 0-9, "_", "-" and "."; rename the tool on the server',
          );
        } else if (names.has(parsed.data.name)) {
          leaveOut(
            name,
            'the server lists a tool of that name already and the first one is kept; give each tool its own name on the server',
          );
        } else {
          const kept = pick(parsed.data);
          chars += JSON.stringify(kept).length;
          if (chars > MAX_LISTING_CHARS) {
            full = true;
            break;
          }
          names.add(parsed.data.name);
          tools.push(kept);
        }
      }
      cursor = res.nextCursor;
      if (cursor && tools.length >= MAX_LISTED_TOOLS) full = true;
      if (!cursor) break;
    }
    if (full || cursor)
      log(
        'mcp_listing_truncated',
        `MCP server "${server.name}": ${full ? `more than ${MAX_LISTED_TOOLS} tools or ${MAX_LISTING_CHARS} characters of tool definitions` : `more than ${MAX_PAGES} pages of tools`}; the first ${tools.length} are kept, the rest are not offered — list fewer tools, or shorter schemas, on the server`,
        { server: server.name, count: tools.length },
      );
    const version = client.getServerVersion()?.version ?? 'unknown';
    return { server: server.name, version, tools, ...(leftOut.length > 0 ? { leftOut } : {}) };
  });
  // The tools may have changed since the sessions kept for calls began (a server may give each
  // session the tools it had then): calls from now on open new ones. A server that kept none may
  // have been redeployed: its next call has a handshake again.
  retireSessions(server.url);
  forgetStatelessServers(server.url);
  if (opts.kv) await storeListing(opts.kv, key, listing, opts);
  return listing;
}

/**
 * Writes the listing to KV for the next isolates, or logs why it could not (too long for a KV value,
 * or the write refused or failed): never throws, the listing is used all the same.
 */
async function storeListing(
  kv: ListingCache,
  key: string,
  listing: McpListing,
  opts: ListingOptions,
): Promise<void> {
  const text = JSON.stringify(listing);
  const bytes = new TextEncoder().encode(text).byteLength;
  const limit = opts.kvMaxBytes ?? MCP_LISTING_KV_MAX_BYTES;
  const where = `MCP server "${listing.server}": its listing (${listing.tools.length} tools, ${bytes} bytes)`;
  const fields: LogFields = { server: listing.server, count: listing.tools.length, bytes };
  if (bytes > limit) {
    log(
      'mcp_listing_not_cached',
      `${where} is longer than a KV value may be (${limit} bytes), so it is not cached: this isolate keeps it, each new isolate lists the server again; list fewer tools or shorter schemas on the server`,
      fields,
    );
    return;
  }
  try {
    const ttl = Math.max(KV_MIN_TTL_S, opts.ttlSeconds ?? MCP_LISTING_TTL_S);
    await kv.put(key, text, { expirationTtl: ttl });
  } catch (err) {
    log(
      'mcp_listing_not_cached',
      `${where} could not be written to KV, so it is not cached: this isolate keeps it, each new isolate lists the server again`,
      { ...fields, error: err },
    );
  }
}

/**
 * A listing read back from KV, or undefined when there is none or it has another shape (listed again).
 * An entry cached before `leftOut` was kept is read without it.
 * @example readCachedListing({ server: 'files', version: '1', tools: [] }); // { server: 'files', … }
 */
export function readCachedListing(value: unknown): McpListing | undefined {
  if (value === null) return undefined;
  const parsed = CachedListing.safeParse(value);
  if (parsed.success) return parsed.data;
  log(
    'mcp_listing_cache_unreadable',
    `MCP listing cached in KV has another shape (${parsed.error.issues[0]?.message}); listing again`,
  );
  return undefined;
}

/**
 * The KV key of a server's cached listing.
 * @example await listingKey({ name: 'files', url: 'https://mcp.example/mcp' }); // 'mcp-tools:files:3f…'
 */
export async function listingKey(server: McpServerConfig): Promise<string> {
  return `mcp-tools:${server.name}:${(await sha256Hex(server.url)).slice(0, 32)}`;
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

function pick(tool: McpListedTool): McpListedTool {
  const out: McpListedTool = { name: tool.name, inputSchema: tool.inputSchema };
  if (tool.title !== undefined) out.title = cut(tool.title);
  if (tool.description !== undefined) out.description = cut(tool.description);
  if (tool.outputSchema !== undefined) out.outputSchema = tool.outputSchema;
  if (tool.annotations) {
    const { readOnlyHint, idempotentHint } = tool.annotations;
    out.annotations = {};
    if (readOnlyHint !== undefined) out.annotations.readOnlyHint = readOnlyHint;
    if (idempotentHint !== undefined) out.annotations.idempotentHint = idempotentHint;
  }
  return out;
}

function cut(text: string): string {
  return text.length > MAX_DESCRIPTION_CHARS ? `${text.slice(0, MAX_DESCRIPTION_CHARS)}…` : text;
}

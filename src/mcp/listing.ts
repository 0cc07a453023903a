/**
 * A server's tool listing (`tools/list`, every page), cached in KV for a few minutes so building a
 * registry does not cost a round trip per server per isolate. The key holds the server's name and a
 * hash of its URL, so pointing a name at another server never serves the old listing.
 */
import type { McpServerConfig } from './config';
import { withMcpClient, type McpConnectOptions } from './client';

/** One tool as the server lists it (the fields edgeplan uses). */
export type McpListedTool = {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; idempotentHint?: boolean };
};

/** What `tools/list` gave for one server, and its version. */
export type McpListing = { server: string; version: string; tools: McpListedTool[] };

/** Default lifetime of a cached listing, in seconds. */
export const MCP_LISTING_TTL_S = 300;
/** KV refuses expirations under a minute. */
const KV_MIN_TTL_S = 60;
/** At most this many `tools/list` pages per server. */
const MAX_PAGES = 50;

export type ListingOptions = McpConnectOptions & {
  kv?: KVNamespace;
  /** Seconds a cached listing lives (at least 60); default {@link MCP_LISTING_TTL_S}. */
  ttlSeconds?: number;
  /** Ask the server even when KV has a listing, and store the fresh one. */
  refresh?: boolean;
};

/**
 * The server's tools: from KV when cached (and `refresh` is not set), else from the server.
 * @example const { tools } = await listMcpTools(server, { headers: {}, kv: env.KV });
 */
export async function listMcpTools(server: McpServerConfig, opts: ListingOptions): Promise<McpListing> {
  const key = await listingKey(server);
  if (opts.kv && !opts.refresh) {
    const cached = await opts.kv.get<McpListing>(key, 'json');
    if (cached) return cached;
  }
  const listing = await withMcpClient(server, opts, async (client) => {
    const tools: McpListedTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const res = await client.listTools(
        cursor ? { cursor } : {},
        opts.signal ? { signal: opts.signal } : {},
      );
      tools.push(...res.tools.map(pick));
      cursor = res.nextCursor;
      if (!cursor) break;
    }
    return { server: server.name, version: client.getServerVersion()?.version ?? 'unknown', tools };
  });
  if (opts.kv) {
    const ttl = Math.max(KV_MIN_TTL_S, opts.ttlSeconds ?? MCP_LISTING_TTL_S);
    await opts.kv.put(key, JSON.stringify(listing), { expirationTtl: ttl });
  }
  return listing;
}

/**
 * The KV key of a server's cached listing.
 * @example await listingKey({ name: 'files', url: 'https://mcp.example/mcp' }); // 'mcp-tools:files:3f…'
 */
export async function listingKey(server: McpServerConfig): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(server.url));
  const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `mcp-tools:${server.name}:${hex.slice(0, 32)}`;
}

function pick(tool: McpListedTool): McpListedTool {
  const out: McpListedTool = { name: tool.name, inputSchema: tool.inputSchema };
  if (tool.title !== undefined) out.title = tool.title;
  if (tool.description !== undefined) out.description = tool.description;
  if (tool.outputSchema !== undefined) out.outputSchema = tool.outputSchema;
  if (tool.annotations) {
    const { readOnlyHint, idempotentHint } = tool.annotations;
    out.annotations = {};
    if (readOnlyHint !== undefined) out.annotations.readOnlyHint = readOnlyHint;
    if (idempotentHint !== undefined) out.annotations.idempotentHint = idempotentHint;
  }
  return out;
}

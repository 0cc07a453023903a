/**
 * How a session with an MCP server is opened: the headers, fetch and signal it is given. In a file of
 * its own, apart from client.ts and the SDK it imports, because the library's `McpToolsOptions` names
 * it: a declaration the package's index.d.ts takes from a module also takes that module's imports, and
 * the SDK's declarations then entered every consumer's type check (they need DOM's `HeadersInit`).
 */
export type McpConnectOptions = {
  /** Resolved headers (secrets substituted). */
  headers: Record<string, string>;
  /** The fetch to use; the runtime's own by default. */
  fetch?: typeof fetch;
  signal?: AbortSignal;
};

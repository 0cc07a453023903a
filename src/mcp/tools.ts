/**
 * MCP servers as tool sources (SPEC §8): each tool a configured server lists becomes the edgeplan tool
 * `mcp.<server>.<tool>`, validated with the server's `inputSchema` before anything is sent, typed by its
 * `outputSchema` where it declares one. A call carries the step's idempotency key in `_meta`
 * ({@link MCP_IDEMPOTENCY_META}); an `isError` result fails the step with the server's text. A call
 * refused because the server no longer has the tool (confirmed by listing it again) fails as
 * `mcp_tool_not_found`, and the isolate's listing is refreshed.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { z } from 'zod';
import { ToolError } from '../errors';
import { defineTool, type AnyTool, type ToolContext } from '../executor/registry';
import { resolveHeaders, type McpServerConfig } from './config';
import { redactSecrets } from '../planner/redact';
import { withMcpClient } from './client';
import { headerSecrets } from './tool-errors';
import { zodFromJsonSchema } from './json-schema';
import {
  listMcpTools,
  noteListingOutdated,
  type ListingOptions,
  type McpLeftOutTool,
  type McpListedTool,
  type McpListing,
} from './listing';
import { log } from '../log';

/** The `_meta` key a call's idempotency key travels in (the same for every attempt of a step). */
export const MCP_IDEMPOTENCY_META = 'edgeplan/idempotency_key';
/** The `_meta` key holding the attempt number (1, 2, …) beside the key. */
export const MCP_ATTEMPT_META = 'edgeplan/attempt';

/** What a tool without an `outputSchema` returns: the text parts joined, and the raw result. */
const UNTYPED_OUTPUT = z.object({
  text: z.string(),
  content: z.array(z.unknown()),
  structured_content: z.record(z.string(), z.unknown()).optional(),
});

export type McpToolsOptions = Omit<ListingOptions, 'headers' | 'signal'> & {
  /** Where `${NAME}` header placeholders are read (the Worker's env); calls read `ctx.env` first. */
  env: Record<string, unknown>;
  /**
   * Called for a server whose listing failed; its tools are left out and the others returned. Without
   * it, the first failure is thrown.
   */
  onListError?: (server: McpServerConfig, err: Error) => void;
  /**
   * Called with the tools a server lists that cannot be used (a name MCP does not allow, a second tool
   * of one name, a definition the protocol refuses), each with why; only for a server that has some.
   */
  onLeftOut?: (server: McpServerConfig, leftOut: readonly McpLeftOutTool[]) => void;
  signal?: AbortSignal;
};

/**
 * Lists every server's tools and returns them as edgeplan tools, named `mcp.<server>.<tool>`.
 * @example
 * const tools = await mcpTools(mcpServersFromEnv(env), { env, kv: env.KV });
 * const registry = new ToolRegistry([...builtinTools, ...tools]);
 */
export async function mcpTools(
  servers: readonly McpServerConfig[],
  opts: McpToolsOptions,
): Promise<AnyTool[]> {
  const { env, onListError, onLeftOut, ...listing } = opts;
  const lists = await Promise.all(
    servers.map(async (server) => {
      try {
        const headers = resolveHeaders(server, env);
        const found = await listMcpTools(server, { ...listing, headers });
        if (found.leftOut?.length) onLeftOut?.(server, found.leftOut);
        return found.tools.map((tool) => mcpTool(server, found, tool, opts));
      } catch (err) {
        if (!onListError) throw err;
        onListError(server, err as Error);
        return [];
      }
    }),
  );
  return lists.flat();
}

/**
 * One listed tool as an edgeplan tool.
 * @example mcpTool(server, listing, listing.tools[0]!, { env }).name; // 'mcp.math.add'
 */
export function mcpTool(
  server: McpServerConfig,
  listing: McpListing,
  listed: McpListedTool,
  opts: Pick<McpToolsOptions, 'env' | 'fetch' | 'kv'>,
): AnyTool {
  const typed = listed.outputSchema !== undefined;
  // Logged, not silent: the tool is kept, but edgeplan checks nothing of what its schema says.
  const unreadable = (which: string) => (why: string) =>
    log(
      'mcp_schema_unreadable',
      `MCP tool "mcp.${server.name}.${listed.name}": its ${which} could not be read (${why}); any object is accepted, the server checks its own`,
      { server: server.name },
    );
  const hints = listed.annotations ?? {};
  return defineTool<Record<string, unknown>, unknown>({
    name: `mcp.${server.name}.${listed.name}`,
    description: listed.description ?? listed.title ?? `${listed.name} (MCP server ${server.name})`,
    version: `mcp:${listing.version}`,
    input: zodFromJsonSchema(listed.inputSchema, unreadable('inputSchema')) as z.ZodType<
      Record<string, unknown>
    >,
    ...(typed
      ? { output: zodFromJsonSchema(listed.outputSchema, unreadable('outputSchema')) }
      : { output: UNTYPED_OUTPUT }),
    idempotent: hints.readOnlyHint === true || hints.idempotentHint === true,
    deterministic: false,
    run: (input, ctx) => callMcpTool(server, listed.name, input, ctx, opts, typed),
  });
}

async function callMcpTool(
  server: McpServerConfig,
  tool: string,
  args: Record<string, unknown>,
  ctx: ToolContext,
  opts: Pick<McpToolsOptions, 'env' | 'fetch' | 'kv'>,
  typed: boolean,
): Promise<unknown> {
  const headers = resolveHeaders(server, { ...opts.env, ...ctx.env });
  const fetcher = opts.fetch ?? ctx.fetch;
  const connect = { headers, signal: ctx.signal, ...(fetcher ? { fetch: fetcher } : {}) };
  let result: Awaited<ReturnType<Client['callTool']>>;
  try {
    result = await withMcpClient(
      server,
      connect,
      (client) =>
        client.callTool(
          {
            name: tool,
            arguments: args,
            _meta: { [MCP_IDEMPOTENCY_META]: ctx.idempotencyKey, [MCP_ATTEMPT_META]: ctx.attempt },
          },
          undefined,
          // The step's own deadline (ctx.signal) bounds the call, not the SDK's 60 s default.
          { signal: ctx.signal, timeout: 2 ** 31 - 1 },
        ),
      // One session per server per isolate for calls: no handshake and no DELETE each (session-reuse.ts).
      { reuse: true },
    );
  } catch (err) {
    // A JSON-RPC refusal ("Unknown tool: x") is how most servers say a tool is not there.
    if (err instanceof ToolError && err.code === 'mcp_error' && SAYS_NOT_FOUND.test(err.message))
      await failIfNoLongerListed(server, tool, ctx, { ...connect, ...(opts.kv ? { kv: opts.kv } : {}) });
    throw err;
  }
  const content = Array.isArray(result.content) ? (result.content as unknown[]) : [];
  const text = textOf(content);
  if (result.isError) {
    // The SDK's McpServer answers a call to a tool it does not have with an isError result.
    if (SAYS_NOT_FOUND.test(text))
      await failIfNoLongerListed(server, tool, ctx, { ...connect, ...(opts.kv ? { kv: opts.kv } : {}) });
    // The server's words, but never the credentials it was sent (a server may echo them).
    const why = redactSecrets(text || 'the tool reported an error', headerSecrets(headers));
    throw new ToolError('mcp_tool_error', `mcp.${server.name}.${tool}: ${why}`, { retryable: false });
  }
  const structured = result.structuredContent as Record<string, unknown> | undefined;
  if (typed) return structured;
  return structured === undefined ? { text, content } : { text, content, structured_content: structured };
}

/** How servers word "no such tool" (the SDK's `Tool x not found`, `Unknown tool: x`, …). */
const SAYS_NOT_FOUND = /not found|unknown tool|no such tool|does not exist|doesn't exist/i;

/**
 * After a call refused in words that may mean "no such tool": lists the server again (storing the
 * fresh listing in KV), and when the tool is no longer there, says the isolate's listing is out of date
 * and throws `mcp_tool_not_found` — a plan validated, or revised, from now on no longer has the tool.
 * Returns when the tool is still listed (the refusal was the tool's own) or the server cannot be
 * listed: the call's own error stands.
 */
async function failIfNoLongerListed(
  server: McpServerConfig,
  tool: string,
  step: Pick<ToolContext, 'runId' | 'stepId' | 'attempt'>,
  opts: Omit<ListingOptions, 'refresh'>,
): Promise<void> {
  let listing: McpListing;
  try {
    listing = await listMcpTools(server, { ...opts, refresh: true });
  } catch {
    return;
  }
  if (listing.tools.some((t) => t.name === tool)) return;
  noteListingOutdated();
  // The step that met it, so the operator finds the run to revise or retry.
  log(
    'mcp_tool_gone',
    `run ${step.runId}: step "${step.stepId}" called "${tool}", which MCP server "${server.name}" no longer lists; its listing is refreshed`,
    {
      server: server.name,
      run_id: step.runId,
      step_id: step.stepId,
      attempt: step.attempt,
      code: 'mcp_tool_not_found',
    },
  );
  throw new ToolError(
    'mcp_tool_not_found',
    `mcp.${server.name}.${tool}: MCP server "${server.name}" no longer lists "${tool}" (it did when the plan was checked); nothing was run. Its listing is refreshed, so new and revised plans no longer offer it: revise the plan to use another tool, or restore the tool on the server, refresh (GET /v1/tools?refresh=true) and retry the step.`,
    { retryable: false },
  );
}

/** The text parts of a result's content, joined by newlines. */
function textOf(content: unknown[]): string {
  const texts: string[] = [];
  for (const part of content) {
    const { type, text } = (part ?? {}) as { type?: unknown; text?: unknown };
    if (type === 'text' && typeof text === 'string') texts.push(text);
  }
  return texts.join('\n');
}

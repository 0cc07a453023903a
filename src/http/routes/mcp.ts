/**
 * edgeplan as an MCP server (SPEC §8): `POST /mcp`, Streamable HTTP in stateless mode with JSON
 * responses, behind the same bearer token as `/v1`. Each tool call is the matching API request made
 * in process (`app.request` with the same bindings and Authorization), so it behaves exactly as the
 * route does; an answer of 4xx or 5xx is a tool result with `isError` and the error envelope.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { Context } from 'hono';
import { zodJsonSchemaValidator } from '../../mcp/json-schema';
import { argumentsWording } from '../mcp-argument-errors';
import { nearestKey } from '../../plan/key-suggestions';
import { toolInputSchema } from '../mcp-input-schemas';
import { messageProblem, requestParamsProblem } from '../mcp-messages';
import { argumentsProblem, type CallError } from '../mcp-tool-calls';
import { MCP_API_TOOLS, type ApiCall, type McpApiTool } from '../mcp-tools';
import { openApiDocument } from '../openapi';
import { ACCESS_JWT_HEADER } from '../middleware/access-auth';
import type { App, AppEnv } from '../types';
import { clipText } from '../../text-cut';

const SERVER_INFO = { name: 'edgeplan', version: '0.1.0' };

/**
 * The most messages one batch holds — the SDK's transport refuses more, but only once they are all
 * well-formed: a batch of 60,000 malformed tools/call (4 MB) was answered one refusal each (7.6 MB,
 * a second of CPU). So the cap comes first, the same for every batch.
 */
const MAX_BATCH_MESSAGES = 100;

/**
 * Mounts `/mcp`. GET (a standalone event stream), DELETE (ending a session) and every other method
 * but POST answer 405 with `Allow: POST` and a JSON-RPC error: the server keeps no sessions.
 * @example registerMcpRoutes(app) // then an MCP client connects to https://<host>/mcp
 */
export function registerMcpRoutes(app: App): void {
  // The tools' argument schemas come from the OpenAPI document, built once the routes are all
  // registered: on the first request, then kept for the isolate.
  let tools: Tool[] | null = null;
  const listing = () => (tools ??= listedTools(app));
  app.post('/mcp', async (c) => {
    // jsonBody() turned a blank body into none; the transport would be handed nothing to parse.
    if (c.req.raw.body === null)
      return c.json(
        {
          jsonrpc: '2.0',
          error: { code: -32700, message: 'Parse error: the request has no body; send a JSON-RPC message' },
          id: null,
        },
        400,
      );
    const body: unknown = await c.req.json();
    // JSON-RPC 2.0: an empty batch is one Invalid Request (the transport would answer 202, nothing).
    if (Array.isArray(body) && body.length === 0)
      return c.json(
        { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request: an empty batch' }, id: null },
        400,
      );
    if (Array.isArray(body) && body.length > MAX_BATCH_MESSAGES)
      return c.json(
        {
          jsonrpc: '2.0',
          error: {
            code: -32600,
            message: `Invalid Request: a batch holds at most ${MAX_BATCH_MESSAGES} messages (got ${body.length}): send the others in another request`,
          },
          id: null,
        },
        400,
      );
    const messages: unknown[] = Array.isArray(body) ? body : [body];
    const problem = messages.map(messageProblem).findIndex((p) => p !== null);
    if (problem >= 0) {
      const where = Array.isArray(body) ? ` (message ${problem} of the batch)` : '';
      const why = messageProblem(messages[problem]);
      return c.json(
        { jsonrpc: '2.0', error: { code: -32600, message: `Invalid Request${where}: ${why}` }, id: null },
        400,
      );
    }
    const answer = async (parsedBody: unknown): Promise<Response> => {
      const server = mcpServer(listing, (call) => callApi(app, c, call));
      const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
      await server.connect(transport);
      try {
        return await transport.handleRequest(c.req.raw, { parsedBody });
      } finally {
        await server.close();
      }
    };
    const refusals = messages.map(requestParamsProblem);
    if (!refusals.some((r) => r !== null)) return answer(body);
    if (!Array.isArray(body)) return c.json(refusals[0], 200);
    // A batch: the well-formed messages answered by the server, the others refused beside them.
    const refused = refusals.filter((r) => r !== null);
    const rest = body.filter((_, i) => refusals[i] === null);
    if (rest.length === 0) return c.json(refused, 200);
    const res = await answer(rest);
    if (res.status === 202) return c.json(refused, 200);
    if (res.status !== 200) return res;
    const answered: unknown = await res.json();
    const results: unknown[] = Array.isArray(answered) ? answered : [answered];
    return c.json([...results, ...refused], 200);
  });
  // Every other method, not only GET and DELETE: registered for those two alone, they made the 405
  // of a PUT or an OPTIONS list them in its Allow, as if /mcp took them.
  app.all('/mcp', (c) =>
    c.json(
      {
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Method not allowed: send MCP messages with POST' },
        id: null,
      },
      405,
      { Allow: 'POST' },
    ),
  );
}

/** What a call to a tool this server does not have is told (its name cut): the nearest name, and every name. */
function unknownToolMessage(name: string): string {
  const names = MCP_API_TOOLS.map((t) => t.name);
  const near = nearestKey(name, names);
  const shown = clipText(name, 80);
  return `Unknown tool "${shown}"${near ? ` (did you mean "${near}"?)` : ''}; the tools are ${names.join(', ')}`;
}

/** `tools/list`: each tool with its arguments as the API documents its route's body. */
function listedTools(app: App): Tool[] {
  const doc = openApiDocument(app, 'http://localhost');
  return MCP_API_TOOLS.map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: toolInputSchema(doc, t) as Tool['inputSchema'],
  }));
}

/** The MCP server for one request; `api` answers a tool call's API request. */
function mcpServer(tools: () => Tool[], api: (call: ApiCall) => Promise<Response>): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {} },
    jsonSchemaValidator: zodJsonSchemaValidator,
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools() }));
  server.setRequestHandler(CallToolRequestSchema, async (req): Promise<CallToolResult> => {
    const tool = MCP_API_TOOLS.find((t) => t.name === req.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, unknownToolMessage(req.params.name));
    const args = req.params.arguments ?? {};
    const refused = tool.closed ? closedArgumentsProblem(tools(), tool, args) : null;
    const call = refused === null ? tool.call(args) : { error: refused };
    if ('error' in call) return errorResult(call);
    const res = await api(call);
    const answered = await res.text();
    const parsed = parseObject(answered);
    const shaped = parsed && res.ok && tool.answer ? tool.answer(parsed, answered.length, args) : parsed;
    if (shaped && 'error' in shaped && typeof shaped.error === 'string')
      return errorResult(shaped as CallError);
    // A refusal of the route's query or body is a refusal of the tool's arguments: said so.
    const json = shaped && res.status === 400 ? argumentsWording(shaped) : shaped;
    const text = json === parsed ? answered : JSON.stringify(json);
    return {
      content: [{ type: 'text', text }],
      ...(json ? { structuredContent: json } : {}),
      ...(res.status >= 400 ? { isError: true } : {}),
    };
  });
  return server;
}

/** A tool error made here (no route answered): its code (`invalid_request` unless said) and message. */
function errorResult(e: CallError): CallToolResult {
  const envelope = { error: { code: e.code ?? 'invalid_request', message: e.error } };
  return {
    isError: true,
    content: [{ type: 'text', text: JSON.stringify(envelope) }],
    structuredContent: envelope,
  };
}

/** Why a closed tool's arguments are refused: one it does not list, or a required one missing. */
function closedArgumentsProblem(
  listed: Tool[],
  tool: McpApiTool,
  args: Record<string, unknown>,
): string | null {
  const schema = listed.find((t) => t.name === tool.name)?.inputSchema;
  const known = Object.keys(schema?.properties ?? {});
  return argumentsProblem(args, known, schema?.required ?? []);
}

/** The API's answer to `call`, made in process with this request's bindings and credentials. */
async function callApi(app: App, c: Context<AppEnv>, call: ApiCall): Promise<Response> {
  const headers = new Headers(call.headers);
  // The caller's credentials, either kind: an approval made at /mcp records the Access identity too.
  for (const name of ['Authorization', ACCESS_JWT_HEADER]) {
    const value = c.req.header(name);
    if (value) headers.set(name, value);
  }
  const init: RequestInit = { method: call.method, headers };
  if (call.body !== undefined) {
    headers.set('Content-Type', 'application/json');
    init.body = JSON.stringify(call.body);
  }
  const url = new URL(call.path, c.req.url);
  return app.request(url.toString(), init, c.env, executionContext(c));
}

/** The request's ExecutionContext; Hono throws when there is none (a test calling app.fetch bare). */
function executionContext(c: Context<AppEnv>): Context<AppEnv>['executionCtx'] | undefined {
  try {
    return c.executionCtx;
  } catch {
    return undefined;
  }
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The SDK's own MCP Client on `/mcp`, over Streamable HTTP whose fetch goes to the app in process:
 * what the `/mcp` test files connect with, call tools with, and follow runs with.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { env } from 'cloudflare:workers';
import { createApp } from '../../src/http/app';
import { zodJsonSchemaValidator } from '../../src/mcp/json-schema';
import type { Json } from './helpers';

export const app = createApp();

/** A connected client; `token` is sent as the bearer token, `bindings` are the app's. */
export async function connect(
  opts: { token?: string; bindings?: Record<string, unknown> } = {},
): Promise<Client> {
  const bindings = opts.bindings ?? env;
  const transport = new StreamableHTTPClientTransport(new URL('http://edgeplan.test/mcp'), {
    fetch: async (url, init) => app.fetch(new Request(url, init), bindings),
    ...(opts.token ? { requestInit: { headers: { Authorization: `Bearer ${opts.token}` } } } : {}),
  });
  const client = new Client({ name: 'test', version: '1' }, { jsonSchemaValidator: zodJsonSchemaValidator });
  await client.connect(transport);
  return client;
}

export type Result = {
  isError?: boolean;
  structuredContent?: Json;
  content: { type: string; text?: string }[];
};

export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Result> {
  return (await client.callTool({ name, arguments: args })) as Result;
}

const TERMINAL = new Set(['completed', 'failed', 'aborted', 'cancelled']);

/** get_run until the run is terminal. */
export async function untilDone(client: Client, runId: string): Promise<Json> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const r = await call(client, 'get_run', { run_id: runId });
    const run = r.structuredContent!;
    if (TERMINAL.has(run.status as string) || Date.now() > deadline) return run;
    await new Promise((res) => setTimeout(res, 20));
  }
}

export const echo = (id: string, parameters: Json, dependencies: string[] = []) => ({
  id,
  action: 'demo.echo',
  parameters,
  dependencies,
});

// A team's MCP server in a process of its own (the CLI tests block their own process while a command
// runs): the official SDK on loopback, one tool plans can call (`shout`) and one whose name MCP does
// not allow (`shout loudly`) — or the tools given as a JSON array of `{name, description?}` in its
// first argument. Prints its port as the first line of stdout; runs until killed.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import process from 'node:process';
import { serveMcp } from '../../scripts/mcp-loopback.mjs';

const listed = process.argv[2] ? JSON.parse(process.argv[2]) : [{ name: 'shout' }, { name: 'shout loudly' }];
const http = await serveMcp(() => {
  const server = new Server({ name: 'team', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: listed.map((tool) => ({ ...tool, inputSchema: { type: 'object' } })),
  }));
  return server;
});
process.stdout.write(`${http.address().port}\n`);

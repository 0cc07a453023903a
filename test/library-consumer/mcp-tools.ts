/**
 * MCP tools in a plain Node program, type-checked with Node's types only (as readme-example.ts): the
 * `edgeplan` entry point's `mcpTools` needs no Workers types — its listing cache is anything with a
 * KV namespace's `get` and `put`, or none.
 */
import { LocalRunner, mcpTools, parseMcpServers } from '../../src/index';

const cache = new Map<string, string>();
const servers = parseMcpServers([{ name: 'files', url: 'http://127.0.0.1:8787/mcp' }]);
const tools = await mcpTools(servers, {
  env: {},
  kv: {
    get: (key: string) => Promise.resolve(cache.has(key) ? (JSON.parse(cache.get(key)!) as unknown) : null),
    put: (key: string, value: string) => Promise.resolve(void cache.set(key, value)),
  },
});
const runner = new LocalRunner({ tools });
runner.start({ plan: { steps: [{ id: 'a', action: 'mcp.files.read', parameters: { path: 'a.txt' } }] } });
console.log((await runner.done()).status);

/**
 * MCP across a deploy (scripts/upgrade-rehearsal.mjs, forward), both ways edgeplan speaks it:
 *
 *   steps     a team's MCP server (the SDK's, on loopback, named `team` in MCP_SERVERS) is called by a
 *             run's steps: the OLD release runs the first call and asks a question; THIS release takes
 *             the answer and runs the second. Each call reaches the server once.
 *   /mcp      an agent's MCP client connects to the OLD release's `/mcp` (initialize, tools/list) and
 *             starts runs; the server is switched under it, and the same client session — not
 *             reconnected — approves one, answers the other and reads them through THIS release.
 *
 * @example
 * const mcp = await mcpAcrossDeploy(); // its `vars` go to both servers' `wrangler dev`
 * await mcp.begin(base, create);       // under the old release
 * await mcp.finish(base, call, check); // under this one
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';
import { serveMcp } from '../mcp-loopback.mjs';

export async function mcpAcrossDeploy(tag) {
  /** Each `tools/call` the team's server ran, by its text. */
  const shouted = [];
  const http = await serveMcp(() => {
    const server = new McpServer({ name: 'team', version: '1.0.0' });
    server.registerTool('shout', { inputSchema: { text: z.string() } }, ({ text }) => {
      shouted.push(text);
      return { content: [{ type: 'text', text: text.toUpperCase() }] };
    });
    return server;
  });
  const url = `http://127.0.0.1:${http.address().port}/mcp`;
  const runs = {};
  let client = null;
  const tool = async (name, args) => {
    const r = await client.callTool({ name, arguments: args });
    return { error: r.isError === true, body: r.structuredContent ?? {} };
  };

  /** Under the old release: the run calling the team's server, and the agent's session with its runs. */
  async function begin(base, create) {
    runs.steps = await create({
      plan: {
        steps: [
          { id: 'first', action: 'mcp.team.shout', parameters: { text: `${tag}-one` } },
          {
            id: 'ask',
            action: 'human.input',
            parameters: { prompt: 'Shout what?' },
            dependencies: ['first'],
          },
          { id: 'second', action: 'mcp.team.shout', parameters: { text: '{{ steps.ask.output }}' } },
        ],
      },
    });
    client = new Client({ name: 'rehearsal-agent', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base()}/mcp`)));
    runs.listed = (await client.listTools()).tools.map((t) => t.name);
    const approval = await tool('start_run', {
      plan: { steps: [{ id: 'go', action: 'demo.echo', parameters: { via: 'mcp' } }] },
      config: { require_plan_approval: true, approval: { timeout_s: 3600 } },
    });
    const input = await tool('start_run', {
      plan: { steps: [{ id: 'ask', action: 'human.input', parameters: { prompt: 'Via MCP?' } }] },
    });
    runs.approval = approval.body.run_id;
    runs.input = input.body.run_id;
    return runs;
  }

  /** Whether the runs stand where the deploy should find them. */
  const ready = async (get) =>
    (await get(`/v1/runs/${runs.steps}`)).status === 'awaiting_input' &&
    (await get(`/v1/runs/${runs.approval}`)).status === 'awaiting_approval' &&
    (await get(`/v1/runs/${runs.input}`)).status === 'awaiting_input';

  /** Under this release: the run's second call, and the agent's session carried on. */
  async function finish({ call, check, ended }) {
    const answered = await call('POST', `/v1/runs/${runs.steps}/input`, {
      input: `${tag}-two`,
      step_id: 'ask',
    });
    const run = await ended(runs.steps);
    check(
      'forward mcp steps: the old release’s MCP call and this one’s, each once, and the run completed',
      answered.status === 200 &&
        run.status === 'completed' &&
        shouted.filter((t) => t.startsWith(tag)).join() === `${tag}-one,${tag}-two`,
      `${answered.status} ${run.status} called ${JSON.stringify(shouted)}`,
    );
    check(
      'forward mcp steps: each step’s output is the team server’s answer',
      JSON.stringify(run.step_results?.first ?? '').includes(`${tag}-one`.toUpperCase()) &&
        JSON.stringify(run.step_results?.second ?? '').includes(`${tag}-two`.toUpperCase()),
      JSON.stringify(run.step_results).slice(0, 300),
    );

    check(
      'forward mcp session: the old release listed its tools',
      runs.listed.includes('approve_run'),
      runs.listed.join(),
    );
    const approved = await tool('approve_run', { run_id: runs.approval, decision: 'approve' });
    const a = await ended(runs.approval);
    check(
      'forward mcp session: approve_run on the session the old release began, taken by this one; completed',
      !approved.error && a.status === 'completed',
      `${JSON.stringify(approved.body).slice(0, 200)} ${a.status}`,
    );
    // A tool the old release did not list: the client may call it once the server has it.
    const answer = await tool('answer_input', { run_id: runs.input, input: 'yes', step_id: 'ask' });
    const i = await ended(runs.input);
    check(
      'forward mcp session: answer_input (new since the old release) on the same session; completed',
      !answer.error && i.status === 'completed' && i.step_results?.ask === 'yes',
      `${JSON.stringify(answer.body).slice(0, 200)} ${i.status}`,
    );
    const read = await tool('get_run', { run_id: runs.input });
    check(
      'forward mcp session: get_run reads it',
      !read.error && read.body.status === 'completed',
      JSON.stringify(read.body).slice(0, 200),
    );
  }

  return {
    vars: ['--var', `MCP_SERVERS:${JSON.stringify([{ name: 'team', url }])}`],
    begin,
    ready,
    finish,
    close: async () => {
      await client?.close().catch(() => {});
      await new Promise((r) => http.close(r));
    },
  };
}

/**
 * The secrets MCP_SERVERS' headers read (`${MCP_TEST_TOKEN}`, vitest.config.mts) are the Worker's own
 * credentials, as API_TOKEN is: a TEA workflow's `settings` cannot read them into a tool's parameters,
 * where an `http.request` would carry them anywhere and `demo.echo` would put them in the run.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api, waitForRun } from '../workers/helpers';

describe('settings ${VAR} and the MCP servers’ credentials', () => {
  it('a workflow reading a header secret of MCP_SERVERS gets it as written; other variables as ever', async () => {
    const secret = (env as unknown as Record<string, string>).MCP_TEST_TOKEN!;
    const r = await api('POST', '/v1/runs', {
      format: 'tea-yaml',
      source: `settings:
  key: "\${MCP_TEST_TOKEN}"
  other: "\${HOSTILE_MCP_TOKEN:-none}"
  allow: "\${HTTP_ALLOWLIST}"
nodes:
  - name: peek
    uses: demo.echo
    with: { key: "{{ settings.key }}", other: "{{ settings.other }}", allow: "{{ settings.allow }}" }
`,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const run = await waitForRun(r.body.run_id as string);
    expect(run.status, JSON.stringify(run.error)).toBe('completed');
    expect(run.step_results.peek).toEqual({
      key: '${MCP_TEST_TOKEN}',
      other: '${HOSTILE_MCP_TOKEN:-none}',
      allow: '127.0.0.1', // a variable no MCP header reads: read as before
    });
    expect(JSON.stringify(run)).not.toContain(secret);
  });

  it('the MCP server that needs the secret still gets it', async () => {
    const r = await api('GET', '/v1/tools');
    const names = (r.body.tools as { name: string }[]).map((t) => t.name);
    expect(names.some((n) => n.startsWith('mcp.authd.'))).toBe(true);
  });
});

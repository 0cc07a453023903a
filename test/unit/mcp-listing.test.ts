/**
 * An MCP listing's shape as KV holds it (with the tools a server listed that were left out, and why),
 * and how the registry says why such a tool is missing — exact names beside whole servers' prefixes.
 */
import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/executor/registry';
import { createToolRegistry } from '../../src/executor/tools/index';
import { readCachedListing } from '../../src/mcp/listing';
import { validatePlan } from '../../src/plan/validate';

const tool = { name: 'ok', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } };

describe('a cached MCP listing', () => {
  it('keeps the left-out tools and their reasons through JSON, as KV stores it', () => {
    const listing = {
      server: 'files',
      version: '2',
      tools: [tool],
      leftOut: [{ name: 'ünï', reason: 'MCP tool names are …; rename the tool on the server' }],
    };
    expect(readCachedListing(JSON.parse(JSON.stringify(listing)))).toEqual(listing);
  });

  it('reads an entry cached before left-out tools were kept, without them', () => {
    const old = { server: 'files', version: '1', tools: [tool] };
    const read = readCachedListing(JSON.parse(JSON.stringify(old)));
    expect(read).toEqual(old);
    expect(read?.leftOut).toBeUndefined();
  });

  it('treats an entry of another shape, or none, as not cached', () => {
    expect(readCachedListing(null)).toBeUndefined();
    expect(readCachedListing({ server: 'files', tools: [tool] })).toBeUndefined();
    expect(
      readCachedListing({ server: 'f', version: '1', tools: [], leftOut: [{ name: 'x' }] }),
    ).toBeUndefined();
    expect(readCachedListing({ server: 'f', version: '1', tools: [{ name: 'x' }] })).toBeUndefined();
  });
});

describe('why a tool is missing', () => {
  const registry = () =>
    new ToolRegistry()
      .markUnavailable('mcp.down.', 'MCP server "down" could not be listed: refused')
      .markToolUnavailable('mcp.files.ünï', 'MCP server "files" lists "ünï", but it is left out: rename it');

  it('says so for the exact name, and not for its siblings or names it prefixes', () => {
    const r = registry();
    expect(r.unavailableReason('mcp.files.ünï')).toContain('left out: rename it');
    expect(r.unavailableReason('mcp.files.other')).toBeUndefined();
    expect(r.unavailableReason('mcp.files.ünïx')).toBeUndefined();
    // A whole server's prefix still covers every tool of it.
    expect(r.unavailableReason('mcp.down.anything')).toContain('could not be listed');
  });

  it('puts the reason in the unknown_tool finding of a plan naming it, as action and as fallback', () => {
    const tools = createToolRegistry({}).markToolUnavailable(
      'mcp.files.ünï',
      'MCP server "files" lists "ünï", but it is left out: rename the tool on the server',
    );
    const { errors } = validatePlan(
      {
        steps: [
          { id: 'a', action: 'mcp.files.ünï', parameters: {} },
          { id: 'b', action: 'agent.message', parameters: {}, fallback_action: 'mcp.files.ünï' },
        ],
      },
      { tools, clock: { now: () => new Date() }, ids: { id: (p) => `${p}_1`, uuid: () => 'u' } },
    );
    const unknown = errors.filter((e) => e.code === 'unknown_tool');
    expect(unknown.map((e) => e.step_id)).toEqual(['a', 'b']);
    for (const e of unknown)
      expect(e.message).toContain(
        '(MCP server "files" lists "ünï", but it is left out: rename the tool on the server)',
      );
  });
});

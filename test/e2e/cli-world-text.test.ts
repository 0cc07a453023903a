/**
 * The world's text through the built `edgeplan` command, against `wrangler dev`: a goal in Japanese
 * or with an emoji family is listed by `edgeplan runs` cut to its column's width in terminal columns,
 * between grapheme clusters (a cut inside a surrogate pair printed U+FFFD, one by UTF-16 units let a
 * CJK goal take twice its column); `edgeplan show` prints an emoji family whole and a bidi override
 * and a colour written out, so the goal cannot be made to read as something else; `edgeplan tools`
 * cuts an MCP server's descriptions and unusable names to their columns, written out.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliSetup } from './cli-setup';
import { echo } from '../fixtures/echo-steps';

/** A team's MCP server whose tools' names and descriptions are the world's text (its own process). */
const WORLD_TOOLS = [
  { name: 'tokyo', description: '東京タワー'.repeat(30) },
  { name: 'painted', description: '\u001b[32mcompleted\u001b[0m soft\u00ADhyphen' },
  // Not a name MCP allows: listed as unavailable, under its name.
  { name: '東京'.repeat(40) },
];
let mcp: ChildProcessWithoutNullStreams | undefined;
let mcpPort = 0;
beforeAll(async () => {
  mcp = spawn(process.execPath, [
    join(process.cwd(), 'test/e2e/team-mcp-server.mjs'),
    JSON.stringify(WORLD_TOOLS),
  ]);
  mcpPort = await new Promise<number>((resolve, reject) => {
    mcp!.stdout.once('data', (d: Buffer) => resolve(Number(String(d).trim())));
    mcp!.once('exit', (code) => reject(new Error(`the MCP server exited (${code})`)));
  });
}, 30_000);
afterAll(() => void mcp?.kill());

const { edgeplanSync, api } = cliSetup('cli-world-text', () => [
  '--var',
  `MCP_SERVERS:${JSON.stringify([{ name: 'world', url: `http://127.0.0.1:${mcpPort}/mcp` }])}`,
]);
const FAMILY = '👩\u200D👩\u200D👧';

async function awaitingRun(goal: string): Promise<string> {
  const plan = { goal, steps: [{ ...echo('greet'), description: `${goal} ${FAMILY}` }] };
  const created = (await api('POST', '/v1/runs', { plan, config: { require_plan_approval: true } })) as {
    run_id: string;
  };
  return created.run_id;
}

describe('the world’s text in the CLI', { timeout: 60_000 }, () => {
  it('lists goals cut to their column in terminal columns, never inside a grapheme', async () => {
    const goals = ['a'.repeat(58) + FAMILY + ' and more', '東京'.repeat(40), 'e\u0301'.repeat(70)];
    const ids: string[] = [];
    // And one of C1 controls, after the others.
    for (const goal of [...goals, '\u009b'.repeat(70)]) ids.push(await awaitingRun(goal));
    // The run list is the D1 index, written beside the run's creation: wait until it lists them all.
    for (let tries = 0; tries < 100; tries++) {
      const page = (await api('GET', '/v1/runs?limit=50')) as { runs: { run_id: string }[] };
      if (ids.every((id) => page.runs.some((r) => r.run_id === id))) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const listed = edgeplanSync(['runs', '--limit', '50']);
    expect(listed.code).toBe(0);
    expect(listed.out).not.toContain('\uFFFD');
    const lines = listed.out.split('\n');
    const goalAt = stringWidth(lines[0]!.slice(0, lines[0]!.indexOf('GOAL')));
    for (const [i, id] of ids.slice(0, goals.length).entries()) {
      const line = lines.find((l) => l.startsWith(id))!;
      // Looked for after the run's id: a goal of a's would be found in an id's hex digits.
      const cell = line.slice(line.indexOf(goals[i]!.slice(0, 2), id.length));
      // The GOAL column starts where its heading does, and is no wider than 60 columns.
      expect(stringWidth(line) - stringWidth(cell)).toBe(goalAt);
      expect(stringWidth(cell)).toBeLessThanOrEqual(60);
      expect(cell.endsWith('…')).toBe(true);
      expect(goals[i]!.startsWith(cell.slice(0, -1))).toBe(true);
    }
    // Cut as printed: each C1 control is written out (`\u009b`, six columns), not measured as none.
    const controls = lines.find((l) => l.startsWith(ids[goals.length]!))!;
    expect(controls.slice(goalAt)).toBe(`${'\\u009b'.repeat(9)}\\u009…`);
  });

  it('lists an MCP server’s tools with their descriptions cut and written out, an unusable name cut', () => {
    const listed = edgeplanSync(['tools']);
    expect(listed.code).toBe(0);
    const lines = listed.out.split('\n');
    const tokyo = lines.find((l) => l.startsWith('mcp.world.tokyo '))!;
    const descriptionAt = stringWidth(lines[0]!.slice(0, lines[0]!.indexOf('DESCRIPTION')));
    expect(stringWidth(tokyo) - descriptionAt).toBeLessThanOrEqual(90);
    // A colour in it is written out, as the invisible soft hyphen is: it paints nothing after it.
    expect(listed.out).toContain('mcp.world.painted');
    expect(listed.out).toContain('\\u001b[32mcompleted\\u001b[0m soft\\u00adhyphen');
    expect(listed.out).not.toContain('\u001b');
    expect(listed.out).not.toContain('\u00ad');
    // The unusable name is cut, and the reasons start where their heading does, near the left.
    const heading = lines.findIndex((l) => /^SERVER +TOOL +WHY$/.test(l));
    const whyAt = stringWidth(lines[heading]!.slice(0, lines[heading]!.indexOf('WHY')));
    const row = lines[heading + 1]!;
    expect(row).toMatch(/^world +mcp\.world\.東京東京.*… +MCP tool names are/);
    expect(stringWidth(row.slice(0, row.indexOf('MCP tool names')))).toBe(whyAt);
    expect(whyAt).toBeLessThanOrEqual(60);
  });

  it('shows an emoji family whole, and a bidi override and a colour written out', async () => {
    const id = await awaitingRun(`pay 10 to ${FAMILY} \u202Eecila \u001b[31mlate`);
    const shown = edgeplanSync(['show', id]);
    expect(shown.out).toContain(`goal: pay 10 to ${FAMILY} \\u202eecila \\u001b[31mlate`);
    expect(shown.out).not.toContain('\u202E');
    expect(shown.out).not.toContain('\u001b');
  });
});

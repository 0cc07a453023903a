/**
 * The world's text through the built `edgeplan` command, against `wrangler dev`: a goal in Japanese
 * or with an emoji family is listed by `edgeplan runs` cut to its column's width in terminal columns,
 * between grapheme clusters (a cut inside a surrogate pair printed U+FFFD, one by UTF-16 units let a
 * CJK goal take twice its column); `edgeplan show` prints an emoji family whole and a bidi override
 * written out, so the goal cannot be made to read as something else.
 */
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { cliSetup } from './cli-setup';
import { echo } from '../fixtures/echo-steps';

const { edgeplanSync, api } = cliSetup('cli-world-text');
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
    const ids = [];
    for (const goal of goals) ids.push(await awaitingRun(goal));
    // The run list is the D1 index, written beside the run's creation: wait until it lists all three.
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
    for (const [i, id] of ids.entries()) {
      const line = lines.find((l) => l.startsWith(id))!;
      // Looked for after the run's id: a goal of a's would be found in an id's hex digits.
      const cell = line.slice(line.indexOf(goals[i]!.slice(0, 2), id.length));
      // The GOAL column starts where its heading does, and is no wider than 60 columns.
      expect(stringWidth(line) - stringWidth(cell)).toBe(goalAt);
      expect(stringWidth(cell)).toBeLessThanOrEqual(60);
      expect(cell.endsWith('…')).toBe(true);
      expect(goals[i]!.startsWith(cell.slice(0, -1))).toBe(true);
    }
  });

  it('shows an emoji family whole and a bidi override written out', async () => {
    const id = await awaitingRun(`pay 10 to ${FAMILY} \u202Eecila`);
    const shown = edgeplanSync(['show', id]);
    expect(shown.out).toContain(`goal: pay 10 to ${FAMILY} \\u202eecila`);
    expect(shown.out).not.toContain('\u202E');
  });
});

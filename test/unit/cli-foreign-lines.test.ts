/**
 * Other people's text in the CLI's lines, in plain Node: a goal, a tool's error, an answer keep the
 * line they are printed on — a table's row, an event's line, the live view's goal — and are cut as
 * they are printed, between graphemes.
 */
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { eventDetail } from '../../src/client/event-detail';
import { applyEvent, emptyView } from '../../src/client/run-view';
import { table } from '../../src/cli/context';
import { eventLine, PLAIN, renderLive } from '../../src/cli/render';
import { terminalText } from '../../src/cli/terminal-text';
import { runEventBuilder } from './run-event-builder';

/** An error whose second line reads as a row of `edgeplan show`'s table, or as an event. */
const FORGED = 'bad input\nafter  completed  ×1     5ms';

describe('other people’s text on the CLI’s lines', () => {
  it('keeps a cell’s line breaks on its row of a table', () => {
    const rows = table([
      ['STEP', 'STATUS', ''],
      ['fails', 'failed', FORGED],
      ['after', 'skipped', 'tab\there'],
    ]).split('\n');
    expect(rows).toHaveLength(3);
    expect(rows[1]).toMatch(/^fails\s+failed\s+bad input after {2}completed/);
    expect(rows[2]).toMatch(/^after\s+skipped\s+tab here$/);
  });

  it('prints an event whose error or goal has line breaks on one line', () => {
    const ev = runEventBuilder();
    const created = ev('RunCreated', {
      run_id: 'run_1',
      goal: `ship\n  13  ${FORGED}`,
      config: {},
      input: null,
    });
    const failed = ev('StepFailed', {
      step_id: 'fails',
      error: { code: 'x', message: FORGED, retryable: false },
    });
    for (const e of [created, failed]) expect(eventLine(e).split('\n')).toHaveLength(1);
    expect(eventLine(failed)).toMatch(/StepFailed\s+fails\s+x: bad input after {2}completed/);
  });

  it('cuts the live view’s goal to the width as printed: on one line, its escapes written out', () => {
    const ev = runEventBuilder();
    const view = emptyView('run_1');
    const goal = `\u001b[2J\u001b]0;title\u0007${'\u00AD'.repeat(40)} 東京\nsecond line ${'x'.repeat(200)}`;
    applyEvent(view, ev('RunCreated', { run_id: 'run_1', goal, config: {}, input: null }));
    const line = terminalText(renderLive(view, 0, 0, PLAIN, 80))
      .split('\n')
      .find((l) => l.startsWith('goal:'))!;
    expect(line).toMatch(/^goal: \\u001b\[2J/);
    expect(stringWidth(line)).toBeLessThanOrEqual(80);
    expect(line.endsWith('…')).toBe(true);
  });

  it('cuts a step’s error and the run’s in the live view as printed, each on its row', () => {
    const ev = runEventBuilder();
    const view = emptyView('run_1');
    const error = {
      code: 'x',
      message: `\u001b[31m${'\u009b'.repeat(30)}\n ✔ after  completed`,
      retryable: false,
    };
    for (const e of [
      ev('RunCreated', { run_id: 'run_1', goal: 'g', config: {}, input: null }),
      ev('PlanAuthored', {
        plan: {
          id: 'p',
          version: 1,
          goal: 'g',
          steps: [{ id: 'fetch', action: 'demo.flaky', dependencies: [], parameters: {} }],
        },
      }),
      ev('ToolInvoked', {
        step_id: 'fetch',
        attempt: 1,
        tool: 'demo.flaky',
        parameters: {},
        idempotency_key: 'k',
      }),
      ev('ToolReturned', { step_id: 'fetch', attempt: 1, success: false, latency_ms: 3, error }),
      ev('StepFailed', { step_id: 'fetch', error, handled: false }),
      ev('RunTerminated', {
        status: 'failed',
        reason: 'step_failed',
        error: { ...error, message: `Step "fetch" failed: ${error.message}` },
      }),
    ])
      applyEvent(view, e);
    const lines = terminalText(renderLive(view, 0, 0, PLAIN, 100)).split('\n');
    // The forged row is not a row, and no line is wider than the terminal.
    expect(lines.filter((l) => /^ ✔ after/.test(l))).toEqual([]);
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(100);
    expect(lines.find((l) => l.startsWith(' ✖ fetch'))).toMatch(/\\u001b\[31m\\u009b.*…$/);
    expect(lines.find((l) => l.startsWith(' error:'))).toMatch(
      /^ error: Step "fetch" failed: \\u001b\[31m.*…$/,
    );
  });

  it('cuts an answer between graphemes, never inside an emoji’s pair', () => {
    const ev = runEventBuilder();
    // The 199th unit of the JSON text is the first half of 🙂 (the old cut kept 199 units, then …).
    const input = `${'a'.repeat(197)}🙂🙂`;
    const detail = eventDetail(ev('InputReceived', { input, step_id: 'ask' }));
    expect(detail).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    expect(detail).toBe(`answer: "${'a'.repeat(197)}🙂…`);
  });
});

/** The Worker's structured log (src/log.ts): one JSON object per line, stable fields, no secrets. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EdgeplanError, ToolError } from '../../src/errors';
import { log, LOG_EVENTS, logEntry } from '../../src/log';

afterEach(() => vi.restoreAllMocks());

describe('logEntry', () => {
  it('has level, event and message first, then the fields given, and nothing undefined', () => {
    const entry = logEntry('step_not_reported', 'run_1/a#2 not reported', {
      run_id: 'run_1',
      step_id: 'a',
      attempt: 2,
      server: undefined,
    });
    expect(Object.keys(JSON.parse(JSON.stringify(entry)) as object)).toEqual([
      'level',
      'event',
      'message',
      'run_id',
      'step_id',
      'attempt',
    ]);
    expect(entry).toMatchObject({ level: 'error', event: 'step_not_reported', attempt: 2 });
  });

  it('takes the level from the event, so one kind of event always has one level', () => {
    expect(logEntry('storage_upgraded', 'm').level).toBe('info');
    expect(logEntry('mcp_tool_left_out', 'm').level).toBe('warn');
    expect(logEntry('unhandled_error', 'm').level).toBe('error');
  });

  it('writes an error as name, message and stack, and takes its code', () => {
    const err = new ToolError('http_error', 'GET https://api.example/ answered 502');
    const entry = logEntry('side_work_failed', 'side work w1 failed', { error: err });
    expect(entry.error).toEqual({
      name: 'ToolError',
      message: err.message,
      stack: expect.stringContaining('ToolError'),
    });
    expect(entry.code).toBe('http_error');
    // A code given wins over the error's.
    const given = logEntry('run_newer_format', 'm', {
      code: 'run_newer_format',
      error: new EdgeplanError('internal', 'x'),
    });
    expect(given.code).toBe('run_newer_format');
  });

  it('writes something thrown that is not an Error by its type and text', () => {
    expect(logEntry('side_work_failed', 'm', { error: 'boom' }).error).toEqual({
      name: 'string',
      message: 'boom',
    });
    expect(logEntry('side_work_failed', 'm', { error: null }).error).toEqual({
      name: 'object',
      message: 'null',
    });
    const hostile = {
      toString: () => {
        throw new Error('no');
      },
    };
    expect(logEntry('side_work_failed', 'm', { error: hostile }).error).toEqual({
      name: 'object',
      message: '[object Object]',
    });
  });

  it('redacts credential-shaped text from the message and the error', () => {
    const err = new Error(
      'upstream said: Authorization: Bearer abcdefgh12345678 refused; api_key=sk-live-000000',
    );
    const entry = logEntry('unhandled_error', 'called with token=hunter2hunter2', { error: err });
    const line = JSON.stringify(entry);
    for (const secret of ['abcdefgh12345678', 'sk-live-000000', 'hunter2hunter2'])
      expect(line).not.toContain(secret);
    expect(entry.message).toBe('called with token=[REDACTED]');
    expect(entry.error?.message).toContain('[REDACTED]');
  });

  it('cuts long text', () => {
    const entry = logEntry('unhandled_error', 'x'.repeat(10_000), { error: new Error('y'.repeat(10_000)) });
    expect(entry.message.length).toBeLessThanOrEqual(2001);
    expect(entry.error!.message.length).toBeLessThanOrEqual(2001);
    expect(entry.error!.stack!.length).toBeLessThanOrEqual(4001);
  });
});

describe('log', () => {
  it('writes one line of JSON per event, on the console method of its level', () => {
    const spies = {
      error: vi.spyOn(console, 'error').mockImplementation(() => {}),
      warn: vi.spyOn(console, 'warn').mockImplementation(() => {}),
      log: vi.spyOn(console, 'log').mockImplementation(() => {}),
    };
    log('steps_not_queued', 'run_1: steps not queued', {
      run_id: 'run_1',
      count: 3,
      error: new Error('queue down'),
    });
    log('mcp_listing_truncated', 'too many pages', { server: 'files', count: 500 });
    log('storage_upgraded', 'run_2: storage upgraded', { run_id: 'run_2' });
    const lines = (['error', 'warn', 'log'] as const).map((k) => {
      expect(spies[k]).toHaveBeenCalledTimes(1);
      const args = spies[k].mock.calls[0]!;
      expect(args).toHaveLength(1);
      expect(String(args[0])).not.toContain('\n');
      return JSON.parse(String(args[0])) as Record<string, unknown>;
    });
    expect(lines[0]).toMatchObject({
      level: 'error',
      event: 'steps_not_queued',
      run_id: 'run_1',
      count: 3,
      error: { name: 'Error', message: 'queue down' },
    });
    expect(lines[1]).toEqual({
      level: 'warn',
      event: 'mcp_listing_truncated',
      message: 'too many pages',
      server: 'files',
      count: 500,
    });
    expect(lines[2]).toEqual({
      level: 'info',
      event: 'storage_upgraded',
      message: 'run_2: storage upgraded',
      run_id: 'run_2',
    });
  });
});

describe('docs/operating.md', () => {
  const doc = readFileSync('docs/operating.md', 'utf8');
  /** The event tables' rows: `| \`event\` | level | what it means | what to do |`. */
  const rows = [...doc.matchAll(/^\| `([a-z_]+)` \| ([a-z]+) \|/gm)].map((m) => ({
    event: m[1]!,
    level: m[2]!,
  }));

  it('says what each logged event means and what to do about it, at the level it is logged', () => {
    const documented = Object.fromEntries(rows.map((r) => [r.event, r.level]));
    expect(documented).toEqual({ ...LOG_EVENTS });
    // One row per event: a second row would say two things of one event.
    expect(rows.length).toBe(Object.keys(LOG_EVENTS).length);
  });

  it('documents only events something in src/ logs', () => {
    // Every log call names its event as a string literal (typed LogEvent), so an event whose name
    // appears nowhere in src/ but its table is one nothing logs any more, and its row is stale.
    const sources = sourceFiles('src')
      .filter((f) => f !== join('src', 'log.ts'))
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    const unlogged = Object.keys(LOG_EVENTS).filter((event) => !sources.includes(`'${event}'`));
    expect(unlogged).toEqual([]);
  });
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(e.name) ? [path] : [];
  });
}

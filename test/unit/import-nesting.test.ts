/** Deep nesting in imported sources is refused with a line, before a recursive parser sees it. */
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { parseCallArgs } from '../../src/import/call-args';
import { convertLlmCompiler } from '../../src/import/llmcompiler';
import { convertTeaYaml } from '../../src/import/tea-yaml';
import { yamlTooDeep } from '../../src/import/yaml-scan';
import { MAX_NESTING_DEPTH } from '../../src/nesting';
import { RESEARCH_PLANNER } from './import-helpers';

/** The depth of a parsed value, walked without recursion. */
function valueDepth(root: unknown): number {
  let max = 0;
  const todo: [unknown, number][] = [[root, 0]];
  for (let item = todo.pop(); item; item = todo.pop()) {
    const [v, d] = item;
    if (v === null || typeof v !== 'object') continue;
    max = Math.max(max, d + 1);
    for (const child of Object.values(v)) todo.push([child, d + 1]);
  }
  return max;
}

/** The smallest limit the text stays within, as yamlTooDeep measures. */
function measured(source: string): number {
  let limit = 0;
  while (yamlTooDeep(source, limit)) limit++;
  return limit;
}

const DOCUMENTS = [
  RESEARCH_PLANNER,
  'a: [[1]]',
  'key:\n- a\n- b: [1, {c: 2}]\n- - x\n  - - y\nother: 1',
  '- - - a\n    - b\n- c',
  'a:\n  b:\n    c:\n      d: [\n        [1,\n          {e: f}]\n      ]',
  'text: "[[[[{{"\nmore: \'[[[\'\nplain: a[b\nblock: |\n  [[[[\n  - - -\nlast: {x: [1]}',
  '? a\n: - b\n  - c: [d]',
  'a: 1\n---\nb: [[2]]',
  'a: [ [ [ } } } [ [ 1 ] ] ] ] ]',
  'a: [[ ---, [[1]]]]\nb: |\n  ---\n  - x\nc: [[2]]',
];

describe('yamlTooDeep', () => {
  it('never measures less than the depth the yaml parser builds', () => {
    for (const doc of DOCUMENTS) {
      const built = valueDepth(parseDocument(doc).toJS());
      expect({ doc, atLeastBuilt: measured(doc) >= built }).toEqual({ doc, atLeastBuilt: true });
    }
  });

  it('stays close to the real depth of an ordinary workflow', () => {
    expect(measured(RESEARCH_PLANNER)).toBeLessThanOrEqual(
      valueDepth(parseDocument(RESEARCH_PLANNER).toJS()) + 1,
    );
  });

  it('points at the first bracket or indicator past the limit', () => {
    expect(yamlTooDeep('a: [[1]]', 2)).toEqual({ offset: 4 });
    expect(yamlTooDeep('a:\n  - - 1', 2)).toEqual({ offset: 7 });
    expect(yamlTooDeep('a: [[1]]', 3)).toBeNull();
  });

  it('is not fooled by closers in quotes or closers that do not match', () => {
    const hidden = 'a: "' + ']'.repeat(500) + '"\nb: ' + '['.repeat(200) + ']'.repeat(200);
    expect(yamlTooDeep(hidden, MAX_NESTING_DEPTH)).not.toBeNull();
    const mismatched = 'a: ' + ('['.repeat(60) + '}'.repeat(59)).repeat(5);
    expect(yamlTooDeep(mismatched, MAX_NESTING_DEPTH)).not.toBeNull();
  });

  it('is not fooled by plain scalars that look like document markers', () => {
    // `---` inside a flow sequence is the string "---", not a new document: the brackets before it
    // stay open (counting them from zero again let 9,000 levels through to the parser).
    for (const marker of ['---', '...']) {
      const src = 'a: ' + `${'['.repeat(60)} ${marker}, `.repeat(2) + '1' + ']'.repeat(120);
      expect(valueDepth(parseDocument(src).toJS())).toBeGreaterThan(MAX_NESTING_DEPTH);
      expect(yamlTooDeep(src, MAX_NESTING_DEPTH)).not.toBeNull();
    }
  });

  it('stops early on 10,000 levels of flow or block nesting', () => {
    for (const src of ['a: ' + '['.repeat(1_000_000), 'a:\n  ' + '- '.repeat(1_000_000) + '1']) {
      const started = Date.now();
      expect(yamlTooDeep(src, MAX_NESTING_DEPTH)).not.toBeNull();
      expect(Date.now() - started).toBeLessThan(1000);
    }
  });
});

describe('TEA workflows nested too deep', () => {
  it('are refused with the line and the limit, for flow and block nesting alike', () => {
    for (const nested of [
      '['.repeat(5_000) + ']'.repeat(5_000),
      '\n' + '  - '.repeat(1) + '- '.repeat(5_000) + '1',
    ]) {
      const r = convertTeaYaml(`nodes:\n  - name: a\n    uses: demo.echo\n    with:\n      x: ${nested}\n`);
      expect(r.ok).toBe(false);
      expect(!r.ok && r.errors).toEqual([
        expect.objectContaining({
          code: 'too_deep',
          line: expect.any(Number),
          message: expect.stringMatching(
            new RegExp(
              `nest more than ${MAX_NESTING_DEPTH} levels deep here; the limit is ${MAX_NESTING_DEPTH}$`,
            ),
          ),
        }),
      ]);
    }
  });

  it('are converted when nested less deeply (with: values stop at 64 levels)', () => {
    const nested = '['.repeat(50) + ']'.repeat(50);
    expect(
      convertTeaYaml(`nodes:\n  - name: a\n    uses: demo.echo\n    with:\n      x: ${nested}\n`).ok,
    ).toBe(true);
  });
});

describe('LLMCompiler arguments nested too deep', () => {
  it('are refused with the line and the limit', () => {
    for (const [open, close] of [
      ['[', ']'],
      ['{"a": ', '}'],
      ['(', ')'],
    ]) {
      const src = `1. demo.echo(x=${open!.repeat(10_000)}1${close!.repeat(10_000)})\n2. join()`;
      const r = convertLlmCompiler(src);
      expect(!r.ok && r.errors[0]).toMatchObject({
        code: 'bad_arguments',
        line: 1,
        message: expect.stringContaining(
          `nest more than ${MAX_NESTING_DEPTH} levels deep here; the limit is ${MAX_NESTING_DEPTH}`,
        ),
      });
    }
  });

  it('are parsed up to the limit', () => {
    const n = MAX_NESTING_DEPTH;
    const r = parseCallArgs(`f(${'['.repeat(n)}1${']'.repeat(n)})`, 1);
    expect(r.ok).toBe(true);
    expect(parseCallArgs(`f(${'['.repeat(n + 1)}1${']'.repeat(n + 1)})`, 1)).toMatchObject({
      ok: false,
      at: n + 2,
    });
  });
});

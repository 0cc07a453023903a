import { describe, expect, it } from 'vitest';
import { TextKeyedCache } from '../../src/plan/text-keyed-cache';
import { cachedTemplates, checkTemplate, renderTemplate, TEMPLATE_CACHE } from '../../src/plan/jinja';
import { cachedConditions, CONDITION_CACHE, evaluateCondition } from '../../src/plan/conditions';
import type { RefScope } from '../../src/plan/references';

const limits = { maxEntries: 3, maxTotalLength: 10, maxTextLength: 6 };

describe('a cache keyed by text, bounded by count and by length', () => {
  it('keeps at most maxEntries, the least recently used going first', () => {
    const c = new TextKeyedCache<number>(limits);
    c.put('a', 1);
    c.put('b', 2);
    c.put('c', 3);
    expect(c.get('a')).toBe(1); // a is now the most recently used: b goes next
    c.put('d', 4);
    expect([c.get('a'), c.get('b'), c.get('c'), c.get('d')]).toEqual([1, undefined, 3, 4]);
    expect(c.size).toBe(3);
  });

  it('keeps at most maxTotalLength characters of keys, evicting as many as it takes', () => {
    const c2 = new TextKeyedCache<number>({ ...limits, maxEntries: 10 });
    c2.put('aaa', 1);
    c2.put('bbb', 2);
    c2.put('cccc', 3); // 10: full
    c2.put('dddddd', 4); // 6 more: aaa and bbb go, cccc stays
    expect([c2.get('aaa'), c2.get('bbb'), c2.get('cccc'), c2.get('dddddd')]).toEqual([
      undefined,
      undefined,
      3,
      4,
    ]);
    expect(c2.totalLength).toBe(10);
  });

  it('never keeps a text longer than maxTextLength, and hands its value back', () => {
    const c = new TextKeyedCache<number>(limits);
    c.put('a', 1);
    expect(c.put('toolong', 7)).toBe(7);
    expect([c.get('toolong'), c.get('a'), c.size, c.totalLength]).toEqual([undefined, 1, 1, 1]);
  });

  it('counts a text put again once', () => {
    const c = new TextKeyedCache<number>(limits);
    c.put('ab', 1);
    c.put('ab', 2);
    expect([c.get('ab'), c.size, c.totalLength]).toEqual([2, 1, 2]);
  });
});

// Templates and conditions come from callers' plans, and what an isolate compiles from them is kept:
// whatever they send, an isolate keeps at most 256 Ki characters of each (the bound docs/scaling.md
// states), and never one text over 32 Ki characters.
const KEPT_AT_MOST = 256 * 1024;
const LONGEST_KEPT = 32 * 1024;

describe("an isolate's compiled templates and conditions stay bounded", () => {
  const large = (i: number, length: number) =>
    `{{ state.n }} ${i} `.padEnd(length - 13, 'x') + '{{ state.m }}';

  it('keeps at most 256 Ki characters of templates, however many large ones arrive', () => {
    for (let i = 0; i < 40; i++) expect(checkTemplate(large(i, 30_000))).toEqual({ ok: true });
    const kept = cachedTemplates();
    expect(kept.characters).toBeLessThanOrEqual(KEPT_AT_MOST);
    expect(kept.characters).toBeGreaterThan(KEPT_AT_MOST - 30_000);
  });

  it('keeps no template over 32 Ki characters, and still renders it', () => {
    const before = cachedTemplates();
    const huge = `${'y'.repeat(LONGEST_KEPT)}{{ state.n + 1 }}`;
    expect(renderTemplate(huge, { state: { n: 1 } })).toEqual({
      ok: true,
      value: `${'y'.repeat(LONGEST_KEPT)}2`,
    });
    expect(cachedTemplates()).toEqual(before);
  });

  it('keeps at most 500 small templates', () => {
    for (let i = 0; i < 600; i++) checkTemplate(`{{ state.n + ${i} }}`);
    expect(cachedTemplates().entries).toBe(500);
    expect(TEMPLATE_CACHE).toEqual({
      maxEntries: 500,
      maxTotalLength: KEPT_AT_MOST,
      maxTextLength: LONGEST_KEPT,
    });
  });

  it('keeps at most 256 Ki characters of conditions, and at most 512 of them', () => {
    const scope: RefScope = { stepOutput: () => ({ found: false }), state: { n: 1 }, input: {} };
    for (let i = 0; i < 40; i++) {
      const expr = `state.n == ${i}${' && state.n == state.n'.repeat(1_300)}`; // ~28,600 characters
      expect(evaluateCondition(expr, scope)).toBe(i === 1);
    }
    const kept = cachedConditions();
    expect(kept.characters).toBeLessThanOrEqual(KEPT_AT_MOST);
    expect(kept.characters).toBeGreaterThan(KEPT_AT_MOST - 30_000);
    for (let i = 0; i < 600; i++) evaluateCondition(`state.n != ${i}`, scope);
    expect(cachedConditions().entries).toBe(512);
    expect(CONDITION_CACHE).toEqual({
      maxEntries: 512,
      maxTotalLength: KEPT_AT_MOST,
      maxTextLength: LONGEST_KEPT,
    });
  });
});

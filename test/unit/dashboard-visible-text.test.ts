/**
 * Hidden characters in what the dashboard shows (src/ui/visible-text.ts), in plain Node: written out
 * in text, escaped in JSON so that the JSON still reads back as the same value.
 */
import { describe, expect, it } from 'vitest';
import { visibleJson, visibleText } from '../../src/ui/visible-text';

const HIDDEN = ['\u202E', '\u2066', '\u200F', '\u200B', '\uFEFF', '\u0085', '\u061C', '\u0007'];

describe('hidden characters in the dashboard', () => {
  it('writes each one out in text, and leaves tabs, line breaks and other scripts alone', () => {
    expect(visibleText('pay \u202Eecila 10')).toBe('pay [U+202E]ecila 10');
    for (const c of HIDDEN) expect(visibleText(`a${c}b`)).toMatch(/^a\[U\+[0-9A-F]{4}\]b$/);
    expect(visibleText('שלום\tمرحبا\r\n🙂 é')).toBe('שלום\tمرحبا\r\n🙂 é');
  });

  it('escapes them in JSON, which reads back as the same value', () => {
    const value = { to: `bob${HIDDEN.join('')}@x`, [`k\u202E`]: ['\u2067'] };
    const json = visibleJson(JSON.stringify(value, null, 2));
    expect(json).not.toMatch(/[\u202E\u2066\u2067\u200F\u200B\uFEFF\u0085\u061C]/);
    expect(json).toContain('"bob\\u202e\\u2066\\u200f\\u200b\\ufeff\\u0085\\u061c\\u0007@x"');
    expect(JSON.parse(json)).toEqual(value);
  });

  it('keeps the joiners writing needs — emoji sequences, Persian and Hindi words — and writes out the others', () => {
    for (const written of ['👩\u200D👩\u200D👧', '🏳️\u200D🌈', '👩🏽\u200D💻', 'می\u200Cخواهم', 'क्\u200Dष'])
      expect(visibleText(written)).toBe(written);
    expect(visibleText('pa\u200Dy')).toBe('pa[U+200D]y');
    expect(visibleText('a\u200Cb')).toBe('a[U+200C]b');
    expect(visibleText('👩\u200D')).toBe('👩[U+200D]');
    expect(visibleJson(JSON.stringify({ who: '👩\u200D👧 x\u200Dy' }))).toBe(
      '{"who":"👩\u200D👧 x\\u200dy"}',
    );
  });
});

/** `API_TOKEN` as a list of tokens (src/api-tokens.ts): how it is split, and that any entry matches. */
import { describe, expect, it } from 'vitest';
import { anyTokenMatches, apiTokens } from '../../src/api-tokens';

describe('apiTokens', () => {
  it('splits on commas and line breaks, trims, and drops empty entries', () => {
    expect(apiTokens('a1,b2')).toEqual(['a1', 'b2']);
    expect(apiTokens(' a1 , b2 \r\n c3\n\n,')).toEqual(['a1', 'b2', 'c3']);
    expect(apiTokens(' , \n')).toEqual([]);
    expect(apiTokens('')).toEqual([]);
    expect(apiTokens(undefined)).toEqual([]);
  });

  it('keeps a token without a comma or line break whole, inner spaces included', () => {
    expect(apiTokens('sécret token/+=')).toEqual(['sécret token/+=']);
    expect(apiTokens('s3cret-token\n')).toEqual(['s3cret-token']);
  });
});

describe('anyTokenMatches', () => {
  it('is true for each entry and for nothing else', async () => {
    const tokens = apiTokens('tok-old,tok-new');
    expect(await anyTokenMatches('tok-old', tokens)).toBe(true);
    expect(await anyTokenMatches('tok-new', tokens)).toBe(true);
    for (const wrong of ['tok-old,tok-new', 'tok', '', 'tok-new ']) {
      expect(await anyTokenMatches(wrong, tokens)).toBe(false);
    }
    expect(await anyTokenMatches('tok-old', [])).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { decodeBody, readLimited } from '../../src/executor/tools/http-body';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('response body decoding', () => {
  it('parses JSON media types, including +json', () => {
    expect(decodeBody(bytes('{"a":1}'), 'application/json; charset=utf-8', false)).toEqual({
      body: { a: 1 },
    });
    expect(decodeBody(bytes('{"type":"x"}'), 'application/problem+json', false)).toEqual({
      body: { type: 'x' },
    });
  });

  it('returns malformed or truncated JSON as text rather than failing', () => {
    expect(decodeBody(bytes('{"a":'), 'application/json', false)).toEqual({ body: '{"a":' });
    expect(decodeBody(bytes('{"a":1}'), 'application/json', true)).toEqual({ body: '{"a":1}' });
  });

  it('returns text for textual types and when no type is given', () => {
    expect(decodeBody(bytes('<p>hi</p>'), 'text/html', false)).toEqual({ body: '<p>hi</p>' });
    expect(decodeBody(bytes('plain'), null, false)).toEqual({ body: 'plain' });
  });

  it('returns binary bodies as base64', () => {
    expect(decodeBody(new Uint8Array([0, 255, 1]), 'image/png', false)).toEqual({
      body: 'AP8B',
      encoding: 'base64',
    });
  });

  it('drops a multi-byte character cut in half by truncation', () => {
    const euro = bytes('a€'); // € is three bytes
    expect(decodeBody(euro.subarray(0, 3), 'text/plain', true)).toEqual({ body: 'a' });
  });
});

describe('limited body reading', () => {
  it('reads a body under the limit whole', async () => {
    const { bytes: b, truncated } = await readLimited(new Response('hello').body, 10);
    expect(new TextDecoder().decode(b)).toBe('hello');
    expect(truncated).toBe(false);
  });

  it('reads a body of exactly the limit without marking it truncated', async () => {
    expect((await readLimited(new Response('hello').body, 5)).truncated).toBe(false);
  });

  it('keeps the first max bytes of a longer body and marks it truncated', async () => {
    const { bytes: b, truncated } = await readLimited(new Response('hello world').body, 5);
    expect(new TextDecoder().decode(b)).toBe('hello');
    expect(truncated).toBe(true);
  });

  it('rejects with the abort reason when the signal aborts mid-read', async () => {
    const stalled = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}) });
    const controller = new AbortController();
    const reading = readLimited(stalled, 100, controller.signal);
    controller.abort(new Error('stop'));
    await expect(reading).rejects.toThrow('stop');
  });
});

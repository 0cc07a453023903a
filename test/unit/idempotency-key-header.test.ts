import { describe, expect, it } from 'vitest';
import {
  callerScope,
  idempotentRunId,
  parseIdempotencyKey,
  requestFingerprint,
} from '../../src/http/idempotency-key';
import { childRunId } from '../../src/engine/child-run';
import { RUN_ID_PATTERN } from '../../src/plan/model';

describe('the Idempotency-Key header', () => {
  it('is no key when absent, the value when plain, and the content when quoted as a Structured Field string', () => {
    expect(parseIdempotencyKey(undefined)).toEqual({ ok: true, key: undefined });
    expect(parseIdempotencyKey(' abc-1 ')).toEqual({ ok: true, key: 'abc-1' });
    expect(parseIdempotencyKey('"abc-1"')).toEqual({ ok: true, key: 'abc-1' });
    expect(parseIdempotencyKey('"a\\"b\\\\c"')).toEqual({ ok: true, key: 'a"b\\c' });
    expect(parseIdempotencyKey('order 42')).toEqual({ ok: true, key: 'order 42' });
  });

  it('refuses an empty key, one over 255 characters and one outside printable ASCII, saying what to send', () => {
    for (const bad of ['', '   ', '""', 'x'.repeat(256), 'tab\there', 'ключ']) {
      const r = parseIdempotencyKey(bad);
      expect(r.ok).toBe(false);
      expect(!('message' in r) || r.message.includes('printable ASCII characters')).toBe(true);
    }
    expect(parseIdempotencyKey('x'.repeat(255)).ok).toBe(true);
  });

  it('trims only spaces and tabs, as HTTP does: other whitespace around a key is refused, not dropped', () => {
    expect(parseIdempotencyKey('\t abc \t')).toEqual({ ok: true, key: 'abc' });
    for (const bad of ['\u00a0abc', 'abc\u2028', '\ufeffabc', 'abc\n'])
      expect(parseIdempotencyKey(bad).ok).toBe(false);
  });
});

describe('the run a key names', () => {
  it('is a run id as a random one looks, the same for the same caller and key, another for another', async () => {
    const id = await idempotentRunId('open', 'order-42');
    expect(id).toMatch(/^run_[0-9a-f]{32}$/);
    expect(RUN_ID_PATTERN.test(id)).toBe(true);
    expect(await idempotentRunId('open', 'order-42')).toBe(id);
    expect(await idempotentRunId('open', 'order-43')).not.toBe(id);
    expect(await idempotentRunId('token:abc', 'order-42')).not.toBe(id);
  });

  it('cannot be a child run’s id, whatever the key', async () => {
    // A child's id hashes "<run>:<step>:<attempt>"; a key's hash is of a differently prefixed text.
    const child = await childRunId({ run_id: 'run_1', step_id: 's', attempt: 1 });
    expect(await idempotentRunId('open', 'run_1:s:1')).not.toBe(child);
  });

  it('is scoped to the bearer token when API_TOKEN is set, and to the deployment when it is not', async () => {
    const a = await callerScope('Bearer tok-a', 'tok-a,tok-b');
    const b = await callerScope('Bearer tok-b', 'tok-a,tok-b');
    expect(a).toMatch(/^token:[0-9a-f]{64}$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('tok-a');
    expect(await callerScope('bearer   tok-a  ', 'tok-a')).toBe(a);
    expect(await callerScope(undefined, undefined)).toBe('open');
    expect(await callerScope('Bearer whatever', '')).toBe('open');
  });
});

describe('a request body’s fingerprint', () => {
  it('ignores the order of object keys, at any depth, but not of array items or values', async () => {
    const f = await requestFingerprint({ plan: { steps: [1, 2], goal: 'g' }, input: { a: 1, b: 2 } });
    expect(await requestFingerprint({ input: { b: 2, a: 1 }, plan: { goal: 'g', steps: [1, 2] } })).toBe(f);
    expect(await requestFingerprint({ input: { b: 2, a: 1 }, plan: { goal: 'g', steps: [2, 1] } })).not.toBe(
      f,
    );
    expect(await requestFingerprint({ input: { b: 2, a: 1 }, plan: { goal: 'h', steps: [1, 2] } })).not.toBe(
      f,
    );
  });

  it('counts a __proto__ key as data', async () => {
    const withProto = JSON.parse('{"input": {"__proto__": {"x": 1}}}') as unknown;
    expect(await requestFingerprint(withProto)).not.toBe(await requestFingerprint({ input: {} }));
  });
});

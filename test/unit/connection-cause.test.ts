/**
 * Why a connection failed, read from the cause chain as Node's fetch builds it (connection-cause.ts);
 * the real failures (refused, DNS, TLS, a URL with credentials) are made against loopback in
 * chat-completions-client.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { connectionCause } from '../../src/executor/tools/connection-cause';
import { statusLike } from '../../src/executor/tools/llm-error-text';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });
const fetchFailed = (cause: unknown) => new TypeError('fetch failed', { cause });

describe('connectionCause', () => {
  it('takes the first address’s reason from an AggregateError (one per address tried)', () => {
    const both = Object.assign(
      new AggregateError(
        [
          withCode('connect ECONNREFUSED ::1:11434', 'ECONNREFUSED'),
          withCode('connect ECONNREFUSED 127.0.0.1:11434', 'ECONNREFUSED'),
        ],
        '',
      ),
      { code: 'ECONNREFUSED' },
    );
    expect(connectionCause(fetchFailed(both))).toBe('connect ECONNREFUSED ::1:11434');
  });

  it('names a certificate’s failure by its message and code', () => {
    const cert = withCode('unable to verify the first certificate', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    expect(connectionCause(fetchFailed(cert))).toBe(
      'unable to verify the first certificate (UNABLE_TO_VERIFY_LEAF_SIGNATURE)',
    );
    expect(connectionCause(fetchFailed(withCode('certificate has expired', 'CERT_HAS_EXPIRED')))).toBe(
      'certificate has expired (CERT_HAS_EXPIRED)',
    );
  });

  it('says nothing when nothing in the chain says more than that it failed, and ends on a loop of causes', () => {
    expect(connectionCause(new TypeError('fetch failed'))).toBe('');
    const loop: { message: string; cause?: unknown } = { message: 'Network connection lost.' };
    loop.cause = loop;
    expect(connectionCause(loop)).toBe('Network connection lost.');
  });
});

describe('statusLike: the HTTP status an error in a 2xx body stands for', () => {
  it.each([
    [{ message: 'x', code: 400 }, 400],
    [{ message: 'x', code: '429' }, 429],
    [{ message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' }, 429],
    [{ message: 'Overloaded', type: 'overloaded_error' }, 503],
    [{ message: 'Incorrect API key provided' }, 401],
    [{ message: 'The model `gpt-9` does not exist' }, 404],
    [{ message: 'Internal server error' }, 500],
    [{ message: 'prompt is too long' }, 400],
    ["model 'llama9' not found", 404],
    [{ message: 'something odd' }, undefined],
  ])('%j → %s', (error, status) => {
    expect(statusLike(error)).toBe(status);
  });
});

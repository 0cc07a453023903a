import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { issueLine, issueText } from '../../src/issue-text';

/** The one issue a value gives under a schema, as zod reports it. */
function issueOf(schema: z.ZodType, value: unknown): z.core.$ZodIssue {
  const r = schema.safeParse(value);
  if (r.success) throw new Error('expected the value to be refused');
  return r.error.issues[0]!;
}

describe("zod's issues in plain English", () => {
  it.each([
    ['an empty string', z.string().min(1), '', 'must not be empty'],
    ['a short string', z.string().min(3), 'ab', 'must be at least 3 characters long'],
    ['a long string', z.string().max(5), 'abcdefg', 'must be at most 5 characters long'],
    ['a string of a set length', z.string().length(2), 'abc', 'must be exactly 2 characters long'],
    ['an empty array', z.array(z.string()).min(1), [], 'must not be empty'],
    ['a long array', z.array(z.number()).max(2), [1, 2, 3], 'must have at most 2 items'],
    ['a number under its minimum', z.number().min(1), 0, 'must be at least 1'],
    ['a number not above its bound', z.number().positive(), 0, 'must be greater than 0'],
    ['a number over its maximum', z.number().max(10), 11, 'must be at most 10'],
    ['a wrong type', z.number(), 'high', 'must be a number, not a string'],
    ['a fraction for an integer', z.number().int(), 1.5, 'must be a whole number'],
    ['a string for an integer', z.int(), '2', 'must be a number, not a string'],
    ['a missing value', z.object({ team: z.string() }), {}, 'is required (a string)'],
    [
      'a value not in an enum',
      z.enum(['sequential', 'parallel', 'adaptive']),
      'fast',
      'must be one of "sequential", "parallel" or "adaptive"',
    ],
    [
      'a value not in a two-value enum',
      z.enum(['approve', 'reject']),
      'maybe',
      'must be "approve" or "reject"',
    ],
    ['a literal', z.literal('v1'), 'v2', 'must be "v1"'],
    ['a bad email', z.email(), 'ada', 'must be an email address'],
    ['a bad URL', z.url(), 'not a url', 'must be a URL'],
    ['a regex miss', z.string().regex(/^P[1-4]$/), 'P9', 'must match the pattern /^P[1-4]$/'],
    ['a wrong prefix', z.string().startsWith('run_'), 'x', 'must start with "run_"'],
    ['a multiple', z.number().multipleOf(5), 7, 'must be a multiple of 5'],
    ['an unknown key', z.strictObject({ a: z.string() }), { a: 'x', b: 1 }, 'unknown key "b"'],
  ])('says %s plainly', (_what, schema, value, text) => {
    const issue = issueOf(schema, value);
    expect(issue.message).not.toBe(text); // zod's own words differ: this is a rewrite
    expect(issueText(issue)).toBe(text);
  });

  it('keeps a message the schema gave itself, whose author meant those words', () => {
    const issue = issueOf(z.string().min(1, 'name the on-call team'), '');
    expect(issueText(issue)).toBe('name the on-call team');
  });

  it("keeps a refinement's custom message", () => {
    const issue = issueOf(
      z.string().refine((s) => s.startsWith('A-'), 'an alert id starts with "A-"'),
      'B-1',
    );
    expect(issueText(issue)).toBe('an alert id starts with "A-"');
  });

  it('says what zod mini, which loads no locale, leaves as "Invalid input"', () => {
    const issue = {
      code: 'invalid_type',
      expected: 'number',
      path: ['expires_at'],
      message: 'Invalid input',
    };
    expect(issueLine(issue)).toBe('expires_at: must be a number');
  });

  it('puts the path as a plan writes it before the text', () => {
    const schema = z.object({ steps: z.array(z.object({ id: z.string().min(1) })) });
    expect(issueLine(issueOf(schema, { steps: [{ id: '' }] }))).toBe('steps[0].id: must not be empty');
  });

  it('says (root) for the value itself', () => {
    expect(issueLine(issueOf(z.object({}), 'x'))).toBe('(root): must be an object, not a string');
  });
});

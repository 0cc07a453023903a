/**
 * zod request-validation failures as `400 invalid_request`: the issues as data in `details`, and a
 * message naming each field path so a caller can act on the text alone.
 */
import type { Context } from 'hono';
import type { z } from 'zod';
import { jsonError } from './errors';
import { issueText, pathText } from '../issue-text';

/** One zod issue as the API reports it. */
export type RequestIssue = { path: (string | number)[]; message: string; code: string };

/** Where a request value came from, as the message names it. */
const TARGET_NAMES: Record<string, string> = {
  json: 'request body',
  form: 'request body',
  query: 'query parameters',
  param: 'path parameters',
  header: 'headers',
  cookie: 'cookies',
};

/** How many issues the message spells out; all of them are in `details`. */
const MAX_ISSUES_IN_MESSAGE = 3;

/** zod issues as plain data (symbols in paths become strings). */
export function toRequestIssues(issues: readonly z.core.$ZodIssue[]): RequestIssue[] {
  return issues.map((i) => ({
    path: i.path.map((p) => (typeof p === 'number' ? p : String(p))),
    message: issueText(i),
    code: i.code,
  }));
}

/**
 * A readable one-line summary: `Invalid request body: config.max_parallel: Too small: expected
 * number to be >=1`. Several issues are joined with `; `, the rest counted.
 */
export function describeIssues(target: string, issues: readonly RequestIssue[]): string {
  const where = TARGET_NAMES[target] ?? target;
  const shown = issues.slice(0, MAX_ISSUES_IN_MESSAGE).map((i) => `${pathText(i.path)}: ${i.message}`);
  const more = issues.length - shown.length;
  return `Invalid ${where}: ${shown.join('; ')}${more > 0 ? ` (and ${more} more)` : ''}`;
}

/** What the OpenAPIHono validators hand their hook. */
type HookResult = { target: string } & ({ success: true } | { success: false; error: z.ZodError });

/**
 * The OpenAPIHono `defaultHook`: lets valid input through, answers invalid input with
 * `400 invalid_request` and `details: { target, issues: [{path, message, code}] }`.
 */
export function validationHook(result: HookResult, c: Context): Response | undefined {
  if (result.success) return undefined;
  const issues = toRequestIssues(result.error.issues);
  return jsonError(c, 'invalid_request', describeIssues(result.target, issues), {
    target: result.target,
    issues,
  });
}

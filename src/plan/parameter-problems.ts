/**
 * How a step's parameters fail its tool's input schema, as `invalid_parameters` findings say it: the
 * schema's own issues, and every key a closed object of it does not declare (parameter-keys.ts), at
 * any depth, with the key it most likely meant. A key zod refuses where that walk saw no closed object
 * (a JSON Schema object with `patternProperties`, or whose `propertyNames` leave the key out) is named
 * the same way, at its own path, from zod's issue. A reference stands for a value of unknown shape:
 * issues at or under a whole-string reference are left to the typed-reference check, and an
 * interpolated string is only held to being a string.
 */
import type { z } from 'zod';
import type { AnyTool } from '../executor/registry';
import { nearestKey } from './key-suggestions';
import { objectKeysAt } from './object-keys-at';
import { unknownKeys, type UnknownKey } from './parameter-keys';
import { formatPath } from './reference-syntax';
import type { PathSegment, Reference } from './reference-syntax';
import { issueText } from '../issue-text';
import { clipText } from '../text-cut';

/** One way parameters do not fit: where in the step, and what is wrong there (path first). */
export type ParameterProblem = { path: PathSegment[]; message: string };

/** Unknown keys of one set of parameters named one problem each; the rest are counted in one more. */
const MAX_KEY_PROBLEMS = 10;

/**
 * The problems of `params` (found at `base` in the step: `['parameters']`, `['fallback_action',
 * 'parameters']`) for `tool`; `refs` are the step's references, placed by their `at`. Under
 * `dataAt` (step paths whose values came from the run's input, input-values.ts) a key a `z.object`
 * would strip is the data's, not a misspelling of the author's: not named (a strict object's refusal
 * still is, as the step would meet it).
 * @example
 * parameterProblems(wordcount, { text: 't', maxx: 2 }, ['parameters'], []);
 * // [{ path: ['parameters', 'maxx'], message: 'parameters.maxx: unknown parameter "maxx" (did you mean "max"?); tool team.wordcount takes text, max' }]
 */
export function parameterProblems(
  tool: AnyTool,
  params: unknown,
  base: readonly PathSegment[],
  refs: readonly Reference[],
  dataAt: readonly (readonly PathSegment[])[] = [],
): ParameterProblem[] {
  const all = unknownKeys(tool.input, params).found;
  const found =
    dataAt.length === 0 ? all : all.filter((u) => !dataAt.some((d) => isPrefix(d, [...base, ...u.path])));
  const problems = keyProblems(tool, found, base);
  const result = tool.input.safeParse(params);
  if (result.success) return problems;
  // A strict object's own report of keys named above, said better there.
  const reported = new Set(found.map((u) => JSON.stringify(u.path)));
  for (const issue of result.error.issues) {
    const at = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
    const path = [...base, ...at];
    if (coveredByReference(issue, path, refs)) continue;
    if (issue.code === 'unrecognized_keys') {
      const left = issue.keys.filter((k) => !reported.has(JSON.stringify([...at, k])));
      problems.push(...refusedKeyProblems(tool, left, at, base));
    } else if (issue.code === 'invalid_key' && at.length > 0) {
      // A name its closed object does not take either is said once, as an unknown key.
      if (reported.has(JSON.stringify(at))) continue;
      problems.push(disallowedKeyProblem(tool, issue, at, base));
    } else problems.push({ path, message: `${formatPath(path)}: ${issueText(issue)} (tool ${tool.name})` });
  }
  return problems;
}

/**
 * Keys zod refused as unrecognised that the walk did not name (parameter-keys.ts sees no closed
 * object there, or stopped at its bounds): each at its own path, as the walk would have said it.
 */
function refusedKeyProblems(
  tool: AnyTool,
  keys: readonly string[],
  at: readonly PathSegment[],
  base: readonly PathSegment[],
): ParameterProblem[] {
  const object = objectKeysAt(tool.input, at) ?? { known: [], patterns: [] };
  const found = keys.map((k) => ({ path: [...at, k], known: object.known, patterns: object.patterns }));
  return keyProblems(tool, found, base);
}

/**
 * A key its object's key schema refuses (JSON Schema `propertyNames`): one of a closed list of names
 * is said as an unknown key (with the likely one); a name of the wrong form says what form.
 */
function disallowedKeyProblem(
  tool: AnyTool,
  issue: z.core.$ZodIssueInvalidKey,
  at: readonly PathSegment[],
  base: readonly PathSegment[],
): ParameterProblem {
  const object = objectKeysAt(tool.input, at.slice(0, -1)) ?? { known: [], patterns: [] };
  const names = issue.issues.flatMap((i) =>
    i.code === 'invalid_value' ? i.values.filter((v): v is string => typeof v === 'string') : [],
  );
  if (names.length > 0) {
    const known = [...new Set([...object.known.filter((k) => names.includes(k)), ...names])];
    return unknownKeyProblem(tool, { path: [...at], known }, base);
  }
  const key = String(at[at.length - 1]);
  const near = nearestKey(key, object.known);
  const meant = near === null ? '' : ` (did you mean ${quoted(near)}?)`;
  const why = issue.issues.map((i) => issueText(i)).join('; ') || issue.message;
  const path = [...base, ...at];
  return {
    path,
    message: `${shownPath(path)}: key ${quoted(key)} is not a name ${ownerOf(tool, base, at)} takes (${why})${meant}`,
  };
}

/**
 * Only the keys of `params` a closed object of `tool`'s input does not declare, as problems — for
 * parameters whose values are checked later (a TEA node's `with:`, Jinja templates rendered as the
 * node runs) while its keys are as written.
 */
export function unknownKeyProblems(
  tool: AnyTool,
  params: unknown,
  base: readonly PathSegment[],
): ParameterProblem[] {
  return keyProblems(tool, unknownKeys(tool.input, params).found, base);
}

function keyProblems(
  tool: AnyTool,
  found: readonly UnknownKey[],
  base: readonly PathSegment[],
): ParameterProblem[] {
  const named = found.slice(0, MAX_KEY_PROBLEMS);
  const problems = named.map((u) => unknownKeyProblem(tool, u, base));
  const more = found.length - named.length;
  if (more > 0) {
    const top = found.every((u) => u.path.length === 1);
    const what = top ? `parameters; tool ${tool.name} ${takes(found[0]!.known)}` : 'keys';
    problems.push({ path: [...base], message: `${formatPath(base)}: ${more} more unknown ${what}` });
  }
  return problems;
}

/**
 * What a run says when an attempt's parameters, as the plan writes them (references unresolved, a TEA
 * node's `with:` unrendered), hold a key a closed object of the tool's input does not declare — the
 * keys validation refuses, refused again as the attempt begins, so a plan that reached the run some
 * other way (a version stored before this check, a rollback) never has one silently dropped. Null when
 * there is none.
 * @example unknownKeysSummary(wordcount, { text: 't', maxx: 2 }); // 'parameters.maxx: unknown parameter "maxx" (did you mean "max"?); tool team.wordcount takes text, max'
 */
export function unknownKeysSummary(tool: AnyTool, params: unknown): string | null {
  const { found } = unknownKeys(tool.input, params);
  if (found.length === 0) return null;
  const shown = found.slice(0, 3).map((u) => unknownKeyProblem(tool, u, PARAMETERS).message);
  if (found.length > shown.length) shown.push(`${found.length - shown.length} more unknown keys`);
  return shown.join('; ');
}

const PARAMETERS: readonly PathSegment[] = ['parameters'];

/**
 * `parameters.maxx: unknown parameter "maxx" (did you mean "max"?); tool t takes text, max` at the top;
 * a nested key says which object of the tool's input does not take it.
 */
function unknownKeyProblem(tool: AnyTool, u: UnknownKey, base: readonly PathSegment[]): ParameterProblem {
  const key = String(u.path[u.path.length - 1]);
  const near = nearestKey(key, u.known);
  const meant = near === null ? '' : ` (did you mean ${quoted(near)}?)`;
  const path = [...base, ...u.path];
  const what = u.path.length === 1 ? 'unknown parameter' : 'unknown key';
  return {
    path,
    message: `${shownPath(path)}: ${what} ${quoted(key)}${meant}; ${ownerOf(tool, base, u.path)} ${takes(u.known, u.patterns)}`,
  };
}

/** A path as a message shows it, its keys cut. */
function shownPath(path: readonly PathSegment[]): string {
  return formatPath(path.map((p) => (typeof p === 'string' ? cut(p) : p)));
}

/** Whose keys a finding on the key at `at` speaks of: `tool t`, or `parameters.options of tool t`. */
function ownerOf(tool: AnyTool, base: readonly PathSegment[], at: readonly PathSegment[]): string {
  return at.length <= 1
    ? `tool ${tool.name}`
    : `${shownPath([...base, ...at.slice(0, -1)])} of tool ${tool.name}`;
}

/**
 * What an object of a tool's input takes, for a finding: `takes a, b` (the first 20 of many, each
 * cut), and `or keys matching /^x_/` when it takes keys by pattern.
 */
function takes(keys: readonly string[], patterns: readonly string[] = []): string {
  const matching =
    patterns.length === 0 ? '' : `keys matching ${patterns.map((p) => `/${cut(p)}/`).join(', ')}`;
  if (keys.length === 0) return matching === '' ? 'takes no parameters' : `takes only ${matching}`;
  const shown = keys.slice(0, 20).map(cut).join(', ');
  return `takes ${shown}${keys.length > 20 ? ` and ${keys.length - 20} more` : ''}${matching === '' ? '' : `, or ${matching}`}`;
}

/** A key as a message shows it: JSON-quoted (a line break stays on its line) and cut. */
function quoted(key: string): string {
  return JSON.stringify(cut(key));
}

/** Keys a plan or a listed schema gives can be any length; a message shows the first 64 characters. */
function cut(key: string): string {
  return clipText(key, 64);
}

function coveredByReference(
  issue: z.core.$ZodIssue,
  path: readonly PathSegment[],
  refs: readonly Reference[],
): boolean {
  for (const r of refs) {
    const at = r.at;
    if (at === undefined) continue;
    if (r.whole === true) {
      if (isPrefix(at, path)) return true;
    } else if (at.length === path.length && isPrefix(at, path)) {
      if (issue.code !== 'invalid_type' || issue.expected === 'string') return true;
    }
  }
  return false;
}

/** `prefix` leads `path` (segments compared as text: `0` and `"0"` are one index). */
export function isPrefix(prefix: readonly PathSegment[], path: readonly PathSegment[]): boolean {
  if (prefix.length > path.length) return false;
  for (let k = 0; k < prefix.length; k++) if (String(prefix[k]) !== String(path[k])) return false;
  return true;
}

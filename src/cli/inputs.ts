/**
 * What the command line turns into request bodies: a plan file by extension or `--format` (plan JSON,
 * a seed-004 `_tool` array, TEA YAML, LLMCompiler text), and `--input` / `--config` pairs.
 */
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import type { CreateRunRequest, ValidateRequest } from '../client';
import { decodeUtf8 } from '../utf8';
import { UsageError } from './exit-codes';

export const FORMATS = ['plan', 'tool-calls', 'tea-yaml', 'llmcompiler'] as const;
export type Format = (typeof FORMATS)[number];

const BY_EXTENSION: Record<string, Format> = {
  '.json': 'plan',
  '.yaml': 'tea-yaml',
  '.yml': 'tea-yaml',
  '.txt': 'llmcompiler',
  '.llmc': 'llmcompiler',
  '.compiler': 'llmcompiler',
};

/** Each file read once (standard input can be read only once): findings are placed in what was sent. */
const texts = new Map<string, string>();

const READ_ERRORS: Record<string, string> = {
  ENOENT: 'no such file',
  EISDIR: 'it is a directory',
  EACCES: 'permission denied',
};

/**
 * A file's text (`-`: standard input); one that is not UTF-8 is refused (read as UTF-8 its other
 * characters would change), and so is an empty one.
 */
export function readText(path: string): string {
  const known = texts.get(path);
  if (known !== undefined) return known;
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path === '-' ? 0 : path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`Cannot read ${path}: ${(code && READ_ERRORS[code]) ?? code ?? String(err)}`);
  }
  const decoded = decodeUtf8(bytes);
  if (!decoded.ok)
    throw new UsageError(
      `${path} is not UTF-8 (byte ${decoded.position} cannot start or continue a character): save it as UTF-8`,
    );
  if (decoded.text.trim() === '') throw new UsageError(`${path} is empty`);
  texts.set(path, decoded.text);
  return decoded.text;
}

export function readJson(path: string): unknown {
  const text = readText(path);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${path} is not JSON: ${(err as Error).message}`);
  }
}

export function formatOf(path: string, given?: string): Format {
  if (given !== undefined) {
    if (!(FORMATS as readonly string[]).includes(given))
      throw new UsageError(`--format must be one of ${FORMATS.join(', ')} (got "${given}")`);
    return given as Format;
  }
  if (path === '-') return 'plan'; // standard input: JSON unless --format says otherwise
  const f = BY_EXTENSION[extname(path).toLowerCase()];
  if (!f) {
    // What is wrong first: a path that is not a file to read (a typo, a directory) says so.
    readText(path);
    throw new UsageError(
      `Cannot tell the format of ${path} from its extension: use .json, .yaml/.yml or .txt, or --format ${FORMATS.join('|')}`,
    );
  }
  return f;
}

/** The plan part of a request from a file: `{plan}` or `{format, source}` (a JSON run request is taken whole). */
export function planRequest(path: string, format?: string): CreateRunRequest & ValidateRequest {
  const f = formatOf(path, format);
  if (f === 'tea-yaml' || f === 'llmcompiler') return { format: f, source: readText(path) };
  const json = path === '-' && format === undefined ? readStdinPlan() : readJson(path);
  // A whole request ({plan, config, input} or {goal, …}) rather than a plan.
  if (
    f === 'plan' &&
    json !== null &&
    typeof json === 'object' &&
    !Array.isArray(json) &&
    !('steps' in json)
  ) {
    if ('plan' in json || 'goal' in json || 'source' in json) return json as CreateRunRequest;
  }
  return { plan: json as CreateRunRequest['plan'] };
}

/** A plan piped in without --format: JSON, or a usage error saying how to send YAML or LLMCompiler text. */
function readStdinPlan(): unknown {
  try {
    return readJson('-');
  } catch (err) {
    if (!(err instanceof UsageError) || !err.message.startsWith('- is not JSON')) throw err;
    // The parser quotes the text it stopped at, line breaks and all: on one line, as the rest.
    const why = err.message.slice('- is not JSON: '.length).replace(/\s+/g, ' ');
    throw new UsageError(
      `standard input is not JSON (${why}): a plan piped in is read as JSON unless --format says otherwise (--format tea-yaml, --format llmcompiler)`,
    );
  }
}

/** A value from the command line: JSON when it parses (`3`, `true`, `{"a":1}`), else the text. */
function value(text: string, option: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  // JSON has no Infinity: `1e999` would be sent as null.
  if (typeof parsed === 'number' && !Number.isFinite(parsed))
    throw new UsageError(`${option}: ${text} is out of range for a number`);
  return parsed;
}

/** The answer `edgeplan input` sends: `@file.json` that file's JSON, else {@link value}. */
export function answerValue(text: string): unknown {
  return text.startsWith('@') ? readJson(text.slice(1)) : value(text, 'the answer');
}

/** A run id from the command line, checked before anything is sent. */
export function runId(id: string): string {
  const trimmed = id.trim();
  if (trimmed === '')
    throw new UsageError('The run id is empty: give one like run_0123abcd… (edgeplan runs lists them)');
  if (/[/?#\s]/.test(trimmed))
    throw new UsageError(`"${id}" is not a run id: give one like run_0123abcd… (edgeplan runs lists them)`);
  return trimmed;
}

/**
 * `k=v` pairs into an object (`a.b=1` → `{a: {b: 1}}`); `@file.json` merges that file's object.
 * @example pairs(['n=3', 'name=Ada']) // { n: 3, name: 'Ada' }
 */
export function pairs(items: readonly string[], option: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const item of items) {
    if (item.startsWith('@')) {
      const file = readJson(item.slice(1));
      if (file === null || typeof file !== 'object' || Array.isArray(file))
        throw new UsageError(`${option} ${item}: the file must hold a JSON object`);
      Object.assign(out, file);
      continue;
    }
    const eq = item.indexOf('=');
    if (eq <= 0) throw new UsageError(`${option} takes key=value or @file.json (got "${item}")`);
    const keys = item.slice(0, eq).split('.');
    if (keys.some((k) => k === '' || k === '__proto__' || k === 'constructor' || k === 'prototype'))
      throw new UsageError(`${option} ${item}: "${item.slice(0, eq)}" is not a key path`);
    let at = out;
    for (const k of keys.slice(0, -1)) {
      const next = at[k];
      at = (at[k] = next !== null && typeof next === 'object' ? next : {}) as Record<string, unknown>;
    }
    at[keys.at(-1)!] = value(item.slice(eq + 1), option);
  }
  return out;
}

/** Collects a repeatable option's values. */
export const collect = (v: string, all: string[] = []) => [...all, v];

/**
 * A flag's whole-number value, within `min`–`max`; anything else is a usage error naming the flag.
 * @example wholeNumber('20', '--limit', 1, 200) // 20; 'abc' or '0' → UsageError (exit 2)
 */
export function wholeNumber(
  value: string,
  option: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const n = /^\d{1,16}$/.test(value.trim()) ? Number(value.trim()) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `${min} or more` : `${min}–${max}`;
    throw new UsageError(`${option} takes a whole number, ${range} (got "${value}")`);
  }
  return n;
}

/**
 * `--idempotency-key`, checked as the API checks the header (1–255 printable ASCII characters): a key
 * with a line break made fetch throw before sending, said as "unreachable" with a hint naming the key
 * cut at the break; an empty one was sent and refused. Spaces and tabs around it go, as HTTP drops them.
 * @example idempotencyKey(' nightly-1 ') // 'nightly-1'; '' or 'a\nb' → UsageError (exit 2)
 */
export function idempotencyKey(value: string): string {
  const key = value.replace(/^[ \t]+|[ \t]+$/g, '');
  if (!/^[\x20-\x7e]{1,255}$/.test(key))
    throw new UsageError(
      `--idempotency-key takes 1 to 255 printable ASCII characters, e.g. nightly-2026-11-29 (got ${value.length > 60 ? `${value.length} characters` : JSON.stringify(value)})`,
    );
  return key;
}

/**
 * Seed 004's data-flow plans: an array of tool calls `{ _tool, ...params, _outputPath? }` (or the
 * `{ calls: [...] }` solution an LLM returns) converted to a §2 plan. `_tool` is the action, every
 * other key a parameter, `†state.x` / `†input.x` become `{{ state.x }}` / `{{ input.x }}`, and
 * `_outputPath` (`†state.a`, or `†state.ok || †state.err` to branch on failure) is the output path.
 * Dependencies are left empty: the graph infers them from which call writes a state path another reads.
 */
import { isRecord } from '../plan/model';
import type { PlanStepInput } from '../plan/model';
import { formatOutputPath, formatPath, normalizeLegacyReferences, parseOutputPath } from '../plan/references';
import type { PathSegment } from '../plan/references';
import { importFailed } from './types';
import type { ImportIssue, ImportResult } from './types';

/** The keys a call carries besides its parameters (seed 004). */
const META_KEYS = new Set(['_tool', '_outputPath']);

/**
 * Whether a submitted `plan` is a seed-004 call list rather than a §2 plan: an array, or an object
 * with a `calls` array and no `steps`.
 * @example isToolCallPlan([{ _tool: 'demo.echo' }]) // true
 */
export function isToolCallPlan(value: unknown): boolean {
  if (Array.isArray(value)) return true;
  return isRecord(value) && Array.isArray(value.calls) && value.steps === undefined;
}

/**
 * Converts a seed-004 call list to a plan. Step ids are `<tool>_<n>`, `n` counting that tool's
 * calls from 1 (`demo.echo` → `demo_echo_1`), so the same list always gets the same ids.
 * @example
 * convertToolCalls([
 *   { _tool: 'fetchUserProfile', userName: 'Alice', _outputPath: '†state.userProfileData' },
 *   { _tool: 'summarizeProfile', profile: '†state.userProfileData' },
 * ]);
 * // → steps fetchUserProfile_1 (output_path "state.userProfileData") and summarizeProfile_1
 * //   (parameters { profile: "{{ state.userProfileData }}" }), the second depending on the first
 */
export function convertToolCalls(value: unknown): ImportResult {
  const wrapped = !Array.isArray(value);
  const calls: unknown = wrapped && isRecord(value) ? value.calls : value;
  const where = wrapped ? 'calls' : 'plan';
  if (!Array.isArray(calls)) {
    return importFailed([
      {
        code: 'not_tool_calls',
        message: 'Expected an array of tool calls ([{"_tool": "<tool>", …}]) or {"calls": [...]}',
      },
    ]);
  }
  const errors: ImportIssue[] = [];
  const steps: PlanStepInput[] = [];
  const taken = new Set<string>();
  const counts = new Map<string, number>();
  calls.forEach((call: unknown, i) => {
    const at = (...rest: PathSegment[]): PathSegment[] => (wrapped ? ['calls', i, ...rest] : [i, ...rest]);
    const step = convertCall(call, `${where}[${i}]`, at, errors);
    if (step === null) return;
    const base = idBase(step.action ?? 'call');
    let n = counts.get(base) ?? 0;
    let id: string;
    do id = `${base}_${++n}`;
    while (taken.has(id));
    counts.set(base, n);
    taken.add(id);
    steps.push({ ...step, id });
  });
  if (errors.length > 0) return importFailed(errors);
  return { ok: true, plan: { steps, metadata: { imported_from: 'tool-calls' } } };
}

/** One call → a step without its id, or null (with the problems added to `errors`). */
function convertCall(
  call: unknown,
  name: string,
  at: (...rest: PathSegment[]) => PathSegment[],
  errors: ImportIssue[],
): Omit<PlanStepInput, 'id'> | null {
  if (!isRecord(call)) {
    errors.push({ code: 'bad_call', message: `${name}: a tool call is an object {"_tool": …}`, path: at() });
    return null;
  }
  const before = errors.length;
  const tool = call._tool;
  if (typeof tool !== 'string' || tool.trim() === '') {
    const hint =
      'id' in call || 'action' in call ? '; to send §2 steps, wrap them in a plan: {"steps": [...]}' : '';
    errors.push({
      code: 'missing_tool',
      message: `${name}: "_tool" must name the tool to call${hint}`,
      path: at('_tool'),
    });
  }
  const parameters: Record<string, unknown> = {};
  for (const key of Object.keys(call)) {
    if (META_KEYS.has(key)) continue;
    if (key === '_output') {
      errors.push({
        code: 'unsupported_field',
        message: `${name}: "_output" marks a call the model already carried out; drop the call (or its "_output") to run it as a step`,
        path: at(key),
      });
    } else if (key.startsWith('_')) {
      errors.push({
        code: 'unknown_meta_key',
        message: `${name}: unknown key "${key}" (the meta keys are "_tool" and "_outputPath")`,
        path: at(key),
      });
    } else {
      parameters[key] = call[key];
    }
  }
  const normalized = normalizeLegacyReferences(parameters) as Record<string, unknown>;
  reportStrayDaggers(normalized, name, at, errors);
  const outputPath = convertOutputPath(call._outputPath, name, at('_outputPath'), errors);
  if (errors.length > before || typeof tool !== 'string') return null;
  // Declared empty: the graph adds what the references imply (so require_dependencies is satisfied too).
  const step: Omit<PlanStepInput, 'id'> = { action: tool.trim(), parameters: normalized, dependencies: [] };
  if (outputPath !== undefined) step.output_path = outputPath;
  return step;
}

function convertOutputPath(
  raw: unknown,
  name: string,
  path: PathSegment[],
  errors: ImportIssue[],
): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'string') {
    errors.push({
      code: 'bad_output_path',
      message: `${name}._outputPath: expected a string such as "†state.result" or "†state.ok || †state.error"`,
      path,
    });
    return undefined;
  }
  const parsed = parseOutputPath(raw);
  if (!parsed.ok) {
    errors.push({ code: 'bad_output_path', message: `${name}._outputPath: ${parsed.message}`, path });
    return undefined;
  }
  return formatOutputPath(parsed.success, parsed.failure);
}

/** A `†` left after normalisation is a reference to something other than state or input. */
function reportStrayDaggers(
  value: unknown,
  name: string,
  at: (...rest: PathSegment[]) => PathSegment[],
  errors: ImportIssue[],
  where: PathSegment[] = [],
): void {
  if (typeof value === 'string') {
    const m = /†[^\s"'`,;)}\]]*/.exec(value);
    if (m) {
      errors.push({
        code: 'bad_reference',
        message: `${name}.${formatPath(where)}: "${m[0]}" is not a reference; write †state.<path> or †input.<path>`,
        path: at(...where),
      });
    }
  } else if (Array.isArray(value)) {
    value.forEach((v: unknown, i) => reportStrayDaggers(v, name, at, errors, [...where, i]));
  } else if (isRecord(value)) {
    for (const k of Object.keys(value)) reportStrayDaggers(value[k], name, at, errors, [...where, k]);
  }
}

/** A tool name as a step-id prefix: characters outside [A-Za-z0-9_-] become `_`. */
function idBase(tool: string): string {
  return tool.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 56) || 'call';
}

/**
 * LLMCompiler plans: numbered calls, one per line, ending with `join()`:
 *
 * ```text
 * Thought: look both up at once
 * 1. search(query="Ronaldo age")
 * 2. search(query="Messi age")
 * 3. math(problem="$1 - $2")
 * 4. join()<END_OF_PLAN>
 * ```
 *
 * Each call becomes a step with the call's number as its id and the tool name (dots allowed) as its
 * action. Keyword arguments are the parameters; positional ones fill the tool's declared input
 * fields in order, as LLMCompiler's tools take them (`search("x")` → `{ query: "x" }` when `search`
 * declares `query` first), and go to `args` when the tool is not known or declares too few fields. `$N` / `${N}` — bare or inside a string — become `{{ steps.N.output }}`, and
 * those references are the only dependencies, so steps that refer to nothing run in parallel.
 * `Thought:` lines describe the next step; `join()` ends the plan. Blank lines, `#` comments and
 * code fences are skipped; anything else is an error naming its line.
 */
import { nearestKey } from '../plan/key-suggestions';
import type { PlanStepInput } from '../plan/model';
import { collectReferences, normalizeLegacyReferences } from '../plan/references';
import { parseCallArgs } from './call-args';
import { LineIndex } from './line-index';
import { importFailed, issueAt } from './types';
import type { ImportIssue, ImportResult } from './types';
import { textStart } from '../text-cut';

const CALL = /[ \t]*(?:(\d+)[ \t]*[.)][ \t]*)?([A-Za-z_][\w.]*)[ \t]*\(/y;
const THOUGHT = /^Thought\s*:\s*(.*)$/i;
const END = '<END_OF_PLAN>';

/**
 * Converts an LLMCompiler plan to a §2 plan.
 * @example
 * const r = convertLlmCompiler('1. search(query="x")\n2. fetch(url=$1)\n3. join()');
 * // r.plan.steps[1] → { id: '2', action: 'fetch', parameters: { url: '{{ steps.1.output }}' } }
 */
export function convertLlmCompiler(
  source: string,
  opts: {
    inputFields?: (tool: string) => readonly string[] | undefined;
    /** Whether a tool exists: with other problems, the calls to missing tools are named too. */
    hasTool?: (tool: string) => boolean;
    /** The registered tools' names: a missing tool's message names the one it likely meant. */
    toolNames?: () => readonly string[];
  } = {},
): ImportResult {
  const index = new LineIndex(source);
  const errors: ImportIssue[] = [];
  const steps: PlanStepInput[] = [];
  const lines: Record<string, number> = {};
  /** Every numbered call seen so far, converted or not (so one bad step does not cascade). */
  const seen: Record<string, number> = {};
  let thought: string | null = null;
  let joinLine: number | null = null;
  let pos = 0;
  while (pos < source.length) {
    const eol = lineEnd(source, pos);
    const text = source.slice(pos, eol).trim();
    const line = index.at(pos).line;
    if (text === '' || text.startsWith('```') || text.startsWith('#')) {
      pos = eol + 1;
      continue;
    }
    if (text.startsWith(END)) break;
    const th = THOUGHT.exec(text);
    if (th) {
      thought = th[1]!.trim() || null;
      pos = eol + 1;
      continue;
    }
    CALL.lastIndex = pos;
    const m = CALL.exec(source);
    if (!m) {
      errors.push(
        issueAt(
          'bad_line',
          line,
          `expected "N. tool(arguments)", "Thought: …" or "join()", found "${clip(text)}"`,
        ),
      );
      pos = eol + 1;
      continue;
    }
    const [, num, tool] = m as unknown as [string, string | undefined, string];
    const parsed = parseCallArgs(source, CALL.lastIndex - 1);
    if (!parsed.ok) {
      const at = index.at(parsed.at);
      errors.push(issueAt('bad_arguments', at.line, `${tool}(…): ${parsed.message}`, at.column));
      pos = eol + 1;
      continue;
    }
    const restEnd = lineEnd(source, parsed.end);
    const rest = source.slice(parsed.end, restEnd).trim();
    pos = restEnd + 1;
    if (rest !== '' && !rest.startsWith('#') && !rest.startsWith(END)) {
      const at = index.at(parsed.end);
      errors.push(issueAt('bad_line', at.line, `unexpected "${clip(rest)}" after ${tool}(…)`, at.column));
    }
    if (joinLine !== null) {
      errors.push(
        issueAt('after_join', line, `${tool}(…) comes after join() on line ${joinLine}, which ends the plan`),
      );
    } else if (tool === 'join') {
      joinLine = line;
      if (parsed.args.length > 0 || Object.keys(parsed.kwargs).length > 0) {
        errors.push(issueAt('bad_arguments', line, 'join() takes no arguments'));
      }
    } else {
      const step = toStep(
        num,
        tool,
        parsed.args,
        parsed.kwargs,
        line,
        seen,
        errors,
        opts.inputFields?.(tool),
      );
      if (num !== undefined) seen[String(Number(num))] ??= line;
      if (step) {
        if (thought !== null) step.description = thought;
        steps.push(step);
        lines[step.id] = line;
      }
    }
    thought = null;
    if (rest.startsWith(END)) break;
  }
  if (steps.length === 0 && errors.length === 0) {
    errors.push({
      code: 'empty_plan',
      message: 'No steps found: expected lines such as 1. search(query="x")',
    });
  }
  if (errors.length > 0) {
    // The plan is not checked until it imports: say now what its check would say of its tools, so
    // one pass over the text finds every problem.
    const { hasTool } = opts;
    if (hasTool)
      for (const step of steps)
        if (step.action !== undefined && !hasTool(step.action))
          errors.push(
            issueAt('unknown_tool', lines[step.id]!, unknownToolMessage(step.action, opts.toolNames)),
          );
    return importFailed(errors.sort((a, b) => (a.line ?? 0) - (b.line ?? 0)));
  }
  return { ok: true, plan: { steps, metadata: { imported_from: 'llmcompiler' } }, lines };
}

/** `unknown tool "x"`, with the registered tool it likely meant when one is near. */
function unknownToolMessage(action: string, toolNames: (() => readonly string[]) | undefined): string {
  const near = toolNames ? nearestKey(action, toolNames()) : null;
  return `unknown tool "${action}"${near === null ? '' : ` (did you mean "${near}"?)`}`;
}

function toStep(
  num: string | undefined,
  tool: string,
  args: unknown[],
  kwargs: Record<string, unknown>,
  line: number,
  earlier: Record<string, number>,
  errors: ImportIssue[],
  fields: readonly string[] | undefined,
): PlanStepInput | null {
  if (num === undefined) {
    errors.push(issueAt('bad_line', line, `number the step: "N. ${tool}(…)"`));
    return null;
  }
  const id = String(Number(num));
  if (Object.hasOwn(earlier, id)) {
    errors.push(issueAt('duplicate_step', line, `step ${id} is already defined on line ${earlier[id]}`));
    return null;
  }
  if (args.length > 0 && Object.hasOwn(kwargs, 'args')) {
    errors.push(
      issueAt('bad_arguments', line, `${tool}(…): positional arguments and "args=" cannot both be given`),
    );
    return null;
  }
  const named = positionalFields(tool, args, kwargs, fields, line, errors);
  if (named === null) return null;
  const raw = named ?? (args.length > 0 ? { args, ...kwargs } : kwargs);
  const parameters = normalizeLegacyReferences(raw, { dollar: true }) as Record<string, unknown>;
  const before = errors.length;
  for (const ref of collectReferences(parameters).refs) {
    if (ref.source !== 'steps' || ref.stepId === undefined || Object.hasOwn(earlier, ref.stepId)) continue;
    const why = ref.stepId === id ? 'its own result' : `step ${ref.stepId}, which does not come before it`;
    errors.push(issueAt('bad_reference', line, `step ${id} refers to ${why} ($${ref.stepId})`));
  }
  // Declared empty: the `$N` references are the dependencies, which the graph adds.
  return errors.length > before ? null : { id, action: tool, parameters, dependencies: [] };
}

/**
 * Positional arguments as the tool's declared fields, in order, with the keyword arguments beside
 * them; undefined when they stay `args` (none given, tool unknown, more of them than fields); null
 * (an error recorded) when a keyword argument names a field a positional one already filled.
 */
function positionalFields(
  tool: string,
  args: unknown[],
  kwargs: Record<string, unknown>,
  fields: readonly string[] | undefined,
  line: number,
  errors: ImportIssue[],
): Record<string, unknown> | null | undefined {
  if (args.length === 0 || fields === undefined || args.length > fields.length) return undefined;
  const out: Record<string, unknown> = {};
  for (let i = 0; i < args.length; i++) {
    const field = fields[i]!;
    if (Object.hasOwn(kwargs, field)) {
      errors.push(
        issueAt('bad_arguments', line, `${tool}(…): "${field}" is given by position ${i + 1} and by name`),
      );
      return null;
    }
    out[field] = args[i];
  }
  return { ...out, ...kwargs };
}

function lineEnd(s: string, from: number): number {
  const i = s.indexOf('\n', from);
  return i < 0 ? s.length : i;
}

function clip(s: string): string {
  return s.length > 60 ? `${textStart(s, 57)}…` : s;
}

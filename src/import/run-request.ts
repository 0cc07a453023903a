/**
 * Turning what `POST /v1/runs` (or `POST /v1/plans/validate`) was sent into a plan candidate: a §2
 * plan passes through, a seed-004 call list is converted, `{format, source}` is imported. Pure, so
 * the HTTP layer only maps the outcome to a response.
 *
 * Status rule: a request whose shape is wrong (`source` without `format`, `format` beside `plan`,
 * a TEA `input` that is not an object) is `invalid_request` (400); a source that is there but does
 * not convert is `invalid_plan` (422) with every problem in `details.errors`, as validation findings are.
 */
import { differingGoals } from '../plan/differing-goals';
import { isRecord } from '../plan/model';
import { checkStateSchema } from '../plan/state-schema';
import type { Finding } from '../plan/validate';
import { convertLlmCompiler } from './llmcompiler';
import { MAX_TEA_SOURCE_BYTES } from './tea-limits';
import { convertTeaYaml } from './tea-yaml';
import { convertToolCalls, isToolCallPlan } from './tool-calls';
import type { ImportIssue } from './types';

export type ImportFormat = 'tea-yaml' | 'llmcompiler';

export type RunSource = {
  goal?: string;
  plan?: unknown;
  format?: ImportFormat;
  source?: string;
  input?: unknown;
};

export type PreparedRun =
  | {
      ok: true;
      /** The plan to validate; undefined when the request has a goal instead. */
      plan: unknown;
      /** What `plan` was converted from; absent for a §2 plan (or a goal), which passes through. */
      format?: ImportFormat | 'tool-calls';
      /** The run's initial state (a TEA workflow's `input`). */
      state?: Record<string, unknown>;
      /** The initial-state keys a TEA workflow reads before any node writes them. */
      stateKeys?: string[];
      /** Step id → source line, for findings about imported steps. */
      lines?: Record<string, number>;
    }
  | {
      ok: false;
      error: {
        code: 'invalid_request' | 'invalid_plan' | 'payload_too_large';
        message: string;
        details?: unknown;
      };
      /**
       * Set when the source was refused before converting for a limit validation checks (more steps
       * than `maxSteps`): these are the validation findings, with their source line, and `error` says
       * what validating would have (`invalid_plan`, the findings in `details.errors`).
       */
      findings?: (Finding & { line?: number })[];
    };

const LABELS: Record<ImportFormat | 'tool-calls', string> = {
  'tea-yaml': 'TEA workflow',
  llmcompiler: 'LLMCompiler plan',
  'tool-calls': 'tool-call list',
};

/**
 * The plan candidate for a run request. `requireState: false` (validation without an `input`) leaves
 * out the check that a TEA workflow's initial state has every key it reads; `stateKeys` lists them.
 * @example prepareRunPlan({ format: 'llmcompiler', source: '1. demo.echo(x=1)\n2. join()' }).ok // true
 */
export function prepareRunPlan(
  req: RunSource,
  opts: {
    requireState?: boolean;
    /** A tool's input fields in declared order: LLMCompiler's positional arguments fill them. */
    inputFields?: (tool: string) => readonly string[] | undefined;
    hasTool?: (tool: string) => boolean;
    toolNames?: () => readonly string[];
    /** The run's `max_steps`: an import sure to have more steps is refused before it is converted. */
    maxSteps?: number;
  } = {},
): PreparedRun {
  if (req.format === undefined) {
    if (req.source !== undefined) {
      return invalidRequest('"source" needs "format": "tea-yaml" or "llmcompiler"');
    }
    const conflict = differingGoals(req.goal, req.plan);
    if (conflict) return invalidRequest(conflict);
    if (!isToolCallPlan(req.plan)) return { ok: true, plan: req.plan };
    const r = convertToolCalls(req.plan);
    return r.ok ? { ok: true, plan: r.plan, format: 'tool-calls' } : invalidPlan('tool-calls', r.errors);
  }
  if (req.plan !== undefined || req.goal !== undefined) {
    return invalidRequest('Send "format" with "source", or a "plan", or a "goal" — one of them');
  }
  if (typeof req.source !== 'string' || req.source.trim() === '') {
    return invalidRequest(`"format": "${req.format}" needs the text to import in "source"`);
  }
  if (req.format === 'llmcompiler') {
    const r = convertLlmCompiler(req.source, {
      ...(opts.inputFields ? { inputFields: opts.inputFields } : {}),
      ...(opts.hasTool ? { hasTool: opts.hasTool } : {}),
      ...(opts.toolNames ? { toolNames: opts.toolNames } : {}),
    });
    return r.ok
      ? { ok: true, plan: r.plan, format: req.format, lines: r.lines ?? {} }
      : invalidPlan(req.format, r.errors);
  }
  if (req.input !== undefined && !isRecord(req.input)) {
    return invalidRequest(
      'For a TEA workflow "input" is its initial state: send an object such as {"user_goal": "…"}',
    );
  }
  // Reading a workflow costs about a second of CPU a MiB, and one that navigates is counted only
  // once read: its size is bounded before it is parsed (tea-limits.ts).
  const bytes = new TextEncoder().encode(req.source).length;
  if (bytes > MAX_TEA_SOURCE_BYTES) {
    return {
      ok: false,
      error: {
        code: 'payload_too_large',
        message: `The TEA workflow is ${bytes} bytes of YAML; the limit is ${MAX_TEA_SOURCE_BYTES} bytes (1 MiB), though a request may carry 5 MiB: split it into smaller workflows, or pass large values in the run's "input" instead of writing them into the workflow`,
        details: { max_bytes: MAX_TEA_SOURCE_BYTES, bytes },
      },
    };
  }
  const r = convertTeaYaml(req.source, opts.maxSteps === undefined ? {} : { maxSteps: opts.maxSteps });
  if (!r.ok) return r.tooManySteps ? tooManySteps(r.errors[0]) : invalidPlan(req.format, r.errors);
  const state = req.input ?? {};
  // TEA's state_schema: the initial state's values must have the declared types.
  const schema = r.plan.metadata?.state_schema;
  const wrong: ImportIssue[] =
    opts.requireState === false || !isRecord(schema)
      ? []
      : checkStateSchema(schema, state).map((f) => {
          const line = r.stateReads.find((read) => read.key === f.key)?.line ?? 1;
          const hint = textHint(f.key, f.expected, state[f.key]);
          return { code: 'state_schema', message: `line ${line}: input: ${f.message}${hint}`, line };
        });
  if (wrong.length > 0) return invalidPlan(req.format, wrong);
  const stateKeys = r.stateReads.map((read) => read.key);
  return { ok: true, plan: r.plan, format: req.format, state, stateKeys, lines: r.lines ?? {} };
}

/**
 * For a string wanted and a number or boolean sent — the CLI's `--input n=5` parses as JSON — how to
 * send it as text; else ''.
 */
function textHint(key: string, expected: string, value: unknown): string {
  const type = expected.replace(/^Optional\[(.+)\]$|^(.+?)\s*\|\s*None$/, '$1$2').trim();
  if ((type !== 'str' && type !== 'string') || (typeof value !== 'number' && typeof value !== 'boolean'))
    return '';
  const text = JSON.stringify(String(value));
  return ` — send it as the string ${text} (on the command line: --input ${key}='${text}')`;
}

/**
 * Validation findings with the source line of the step each is about, when the plan was imported
 * from text.
 */
export function withSourceLines(
  findings: Finding[],
  lines: Record<string, number> | undefined,
): (Finding & { line?: number })[] {
  if (lines === undefined) return findings;
  return findings.map((f) => {
    const line = f.step_id === undefined ? undefined : lines[f.step_id];
    return line === undefined ? f : { ...f, line };
  });
}

/** An import refused for having more steps than `max_steps`, answered as validating it would be. */
function tooManySteps(issue: ImportIssue | undefined): PreparedRun {
  const finding: Finding & { line?: number } = {
    code: 'too_many_steps',
    message: issue?.message ?? 'more steps than max_steps',
    ...(issue?.line === undefined ? {} : { line: issue.line }),
  };
  return {
    ok: false,
    error: {
      code: 'invalid_plan',
      message: `The plan has 1 finding: ${finding.message}`,
      details: { errors: [finding] },
    },
    findings: [finding],
  };
}

function invalidRequest(message: string): PreparedRun {
  return { ok: false, error: { code: 'invalid_request', message } };
}

function invalidPlan(format: ImportFormat | 'tool-calls', errors: ImportIssue[]): PreparedRun {
  const n = errors.length;
  const more = n > 1 ? ' (all problems are in details.errors)' : '';
  return {
    ok: false,
    error: {
      code: 'invalid_plan',
      message: `The ${LABELS[format]} could not be imported: ${errors[0]?.message ?? 'no plan'}${more}`,
      details: { format, errors },
    },
  };
}

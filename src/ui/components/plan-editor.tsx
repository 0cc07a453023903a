/**
 * A plan in a text area, validated as you type (`POST /v1/plans/validate`, debounced): a plan as JSON,
 * a seed-004 `_tool` array, TEA YAML or LLMCompiler text — recognised from the text — with the
 * findings (and their lines) shown inline and the plan it becomes listed.
 */
import { useEffect, useState } from 'preact/hooks';
import { estimateText, type CreateRunRequest, type ValidationResult } from '../../client';
import { api, errorText, findingsOf } from '../api';

/** The steps the preview of the plan lists (a 10,000-step plan's list was 20,000 elements). */
const PREVIEW = 100;

export type Source = { body: CreateRunRequest; kind: string } | { error: string };

/** What the text is: JSON (a plan, a call list, or a whole request), TEA YAML, or LLMCompiler. */
export function sourceOf(text: string): Source {
  const trimmed = text.trim();
  if (!trimmed) return { error: 'Paste a plan' };
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      const json = JSON.parse(trimmed) as unknown;
      if (Array.isArray(json))
        return { body: { plan: json as CreateRunRequest['plan'] }, kind: '_tool call list' };
      const obj = json as Record<string, unknown>;
      if ('calls' in obj && !('steps' in obj))
        return { body: { plan: obj as CreateRunRequest['plan'] }, kind: '_tool call list' };
      return { body: { plan: obj as CreateRunRequest['plan'] }, kind: 'JSON plan' };
    } catch (e) {
      return { error: `Not JSON: ${(e as Error).message}` };
    }
  }
  if (/^\s*(nodes|edges|state_schema|settings|name)\s*:/m.test(text))
    return { body: { format: 'tea-yaml', source: text }, kind: 'TEA YAML' };
  return { body: { format: 'llmcompiler', source: text }, kind: 'LLMCompiler' };
}

/** The limits of a run's configuration that validation applies. */
export type ValidationLimits = {
  max_steps?: number;
  max_depth?: number;
  token_budget?: number | null;
  require_fallbacks?: boolean;
};

export type Finding = { code: string; message: string; step_id?: string | null; line?: number | null };

/** Findings one a line: where (line, step), the code, what is wrong. */
export function FindingList({
  findings,
  label = 'Findings',
}: {
  findings: readonly Finding[];
  label?: string;
}) {
  return (
    <ul class="findings" aria-label={label}>
      {findings.map((f, i) => (
        <li key={i}>
          {f.line ? <span class="line">line {f.line}</span> : null} <code>{f.code}</code>
          {f.step_id ? ` [${f.step_id}]` : ''}: {f.line ? f.message.replace(/^line \d+: /, '') : f.message}
        </li>
      ))}
    </ul>
  );
}

export type Checked = { source: Source; result: ValidationResult | null; problem: string | null };

export function PlanEditor({
  text,
  onText,
  onChecked,
  label = 'Plan',
  anonymous = false,
  limits,
  input,
}: {
  text: string;
  onText: (t: string) => void;
  onChecked?: (c: Checked) => void;
  label?: string;
  anonymous?: boolean;
  /** The run's own limits (max_steps, …) to validate against, instead of the defaults. */
  limits?: ValidationLimits;
  /** The run's input, boxed: a whole `{{ input.… }}` is checked against it (`input` of the request). */
  input?: { value: unknown; kindsOnly?: boolean } | undefined;
}) {
  const [checked, setChecked] = useState<Checked | null>(null);
  useEffect(() => {
    const source = sourceOf(text);
    const timer = setTimeout(() => {
      if ('error' in source) {
        const c = { source, result: null, problem: source.error };
        setChecked(c);
        onChecked?.(c);
        return;
      }
      void api({ anonymous })
        .validatePlan({
          ...source.body,
          ...(limits ? { config: limits } : {}),
          ...(input ? { input: input.value } : {}),
          // A stand-in's values are not the run's: the API checks only what its references find.
          ...(input?.kindsOnly ? { input_kinds_only: true } : {}),
        })
        .then((result) => ({ source, result, problem: null }))
        .catch((e: unknown) => {
          const errors = findingsOf(e);
          return errors.length
            ? { source, result: { valid: false, errors } as unknown as ValidationResult, problem: null }
            : { source, result: null, problem: errorText(e) };
        })
        .then((c: Checked) => {
          setChecked(c);
          onChecked?.(c);
        });
    }, 300);
    return () => clearTimeout(timer);
    // By value: a caller's limits are a new object each render (a run page re-renders every 250 ms);
    // the input by identity (the same RunCreated payload each render), as it may be large.
  }, [text, anonymous, JSON.stringify(limits ?? null), input !== undefined, input?.value]);

  const result = checked?.result;
  const plan = result ? (result.imported?.plan ?? result.plan) : undefined;
  const steps =
    (plan as { steps?: { id: string; action?: string; dependencies?: string[] }[] } | undefined)?.steps ?? [];
  return (
    <div class="plan-editor">
      <label>
        {label}
        <textarea
          spellcheck={false}
          value={text}
          rows={16}
          onInput={(e) => onText((e.target as HTMLTextAreaElement).value)}
        />
      </label>
      <div class="check" aria-live="polite">
        {checked === null ? <span class="muted">Checking…</span> : null}
        {checked?.problem ? <p class="error">{checked.problem}</p> : null}
        {result ? (
          result.valid ? (
            <p class="ok">
              ✔ Valid {'source' in checked && 'kind' in checked.source ? `(${checked.source.kind})` : ''}
              {result.estimates ? `: ${estimateText(result.estimates)}` : ''}
            </p>
          ) : (
            <FindingList findings={result.errors} />
          )
        ) : null}
        {steps.length ? (
          <details open={steps.length <= 12}>
            <summary>The plan it becomes: {steps.length} steps</summary>
            <ol class="preview">
              {steps.slice(0, PREVIEW).map((s) => (
                <li key={s.id}>
                  <code>{s.id}</code> {s.action}
                  {s.dependencies?.length ? <span class="muted"> ← {s.dependencies.join(', ')}</span> : null}
                </li>
              ))}
            </ol>
            {steps.length > PREVIEW ? (
              <p class="muted">and {(steps.length - PREVIEW).toLocaleString()} more</p>
            ) : null}
          </details>
        ) : null}
      </div>
    </div>
  );
}

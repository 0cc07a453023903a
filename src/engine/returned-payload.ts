/**
 * The `ToolReturned` payload an attempt's outcome is recorded as: a TEA node's result mapped as TEA
 * stores it, an output over the size limit or one that cannot merge into state recorded as the
 * attempt's failure, and what a TEA result does not fit in `state_schema` noted.
 */
import type { ErrorInfo } from '../errors';
import { DEFAULT_MAX_OUTPUT_BYTES } from '../plan/config';
import { isRecord } from '../plan/model';
import { renderValue } from '../plan/jinja';
import { checkStateSchema } from '../plan/state-schema';
import { teaMetaOf } from '../plan/tea-meta';
import type { EventPayloads } from './events';
import type { StepOutcome } from './machine-types';
import { boundedError, outputLimitError } from './value-limits';
import type { RunState } from './state';

/**
 * The `ToolReturned` payload for an attempt's outcome. An output over the run's `max_output_bytes`
 * is recorded as the attempt's failure (`output_too_large`), never stored. A success whose step merges its result into
 * state (`output_path: "state"`) but that is no plain object cannot be merged: it is recorded as
 * the attempt's failure (`bad_output`, not retryable — the fallback and the failure strategy
 * still apply), so the log, the live state and replay all agree on it.
 */
export function returnedPayload(
  s: RunState,
  step_id: string,
  attempt: number,
  o: StepOutcome,
): EventPayloads['ToolReturned'] {
  const { latency_ms, tokens } = o;
  if (o.success) o = { ...o, output: teaResult(s, step_id, o.output) };
  const error = o.success
    ? (outputLimitError(step_id, o.output, s.config.max_output_bytes ?? DEFAULT_MAX_OUTPUT_BYTES) ??
      mergeError(s, step_id, o.output))
    : o.error;
  if (o.success && error === null) {
    const schema_findings = schemaFindings(s, step_id, o.output);
    const payload = {
      step_id,
      attempt,
      success: true,
      output: o.output,
      latency_ms,
      tokens,
      cached: o.cached,
    };
    return schema_findings ? { ...payload, schema_findings } : payload;
  }
  return { step_id, attempt, success: false, error: boundedError(error!), latency_ms, tokens };
}

/**
 * The references of an attempt's `ToolReturned`: its step, and the version of the tool that returned
 * (as its `ToolInvoked` named it) — SPEC §5's envelope.
 * @example emit({ type: 'ToolReturned', payload, references: returnedReferences(s, 'fetch') });
 */
export function returnedReferences(s: RunState, step_id: string): { step_id: string; tool_version?: string } {
  const tool_version = s.steps.get(step_id)?.tool_version;
  return tool_version === undefined ? { step_id } : { step_id, tool_version };
}

/**
 * A TEA node's result as TEA stores it: through its `output:` mapping (each template rendered with
 * `result`), else — when it merges into state — a result that is no dict becomes `{result: …}`.
 */
function teaResult(s: RunState, stepId: string, output: unknown): unknown {
  const meta = teaMetaOf(s.plan);
  if (!meta) return output;
  const mapping = meta.outputs[stepId];
  if (mapping) {
    const r = renderValue(mapping, { result: output, variables: meta.variables, settings: meta.settings });
    return r.ok ? r.value : { error: `output mapping failed at ${r.path}: ${r.message}` };
  }
  const i = s.graph?.index.get(stepId);
  const merges = i !== undefined && s.graph!.writes[i]?.success?.length === 0;
  return merges && !isRecord(output) ? { result: output ?? null } : output;
}

/**
 * What a TEA node's result does not fit in `state_schema`, or null. TEA's own examples declare an
 * `llm.call` result `str` (it is a dict), so findings are recorded, not fatal; the input is held to it.
 */
function schemaFindings(s: RunState, stepId: string, output: unknown): string[] | null {
  const schema = teaMetaOf(s.plan)?.state_schema;
  const i = s.graph?.index.get(stepId);
  const path = i === undefined ? undefined : s.graph!.writes[i]?.success;
  if (!schema || !path || path.length > 1) return null;
  const written = path.length === 0 ? (isRecord(output) ? output : {}) : { [String(path[0])]: output };
  const findings = checkStateSchema(schema, written);
  return findings.length === 0 ? null : findings.map((f) => `Node "${stepId}": ${f.message}`);
}

/** Why a step's output cannot be merged into state, or null (it can, or the step does not merge). */
function mergeError(s: RunState, stepId: string, output: unknown): ErrorInfo | null {
  const i = s.graph?.index.get(stepId);
  if (i === undefined || s.graph!.writes[i]?.success?.length !== 0 || isRecord(output)) return null;
  return {
    code: 'bad_output',
    message: `output_path "state" merges an object's keys into state; step "${stepId}" returned ${kindOf(output)}`,
    retryable: false,
  };
}

function kindOf(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'an array';
  const t = typeof v;
  return t === 'object' ? 'an object' : `a ${t}`;
}

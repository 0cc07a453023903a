/**
 * Reading a plan out of a model's answer (SPEC §3 "What the model returns"). Accepts a §2 plan, a
 * bare array of steps, seed 003's `{planId, steps: [{id, type, toolId, input}]}` (and its
 * `{nodes, edges}` graph), seed 001's `subtasks`, and NDJSON lines (`{"type":"step","step":{…}}`) —
 * fenced, wrapped in prose, with trailing commas or comments. Pure; the result is a candidate for
 * `validatePlan`, or an error worded to be quoted back to the model.
 */
import { convertToolCalls } from '../import/tool-calls';
import { FINAL_OUTPUT_KEY } from '../plan/final-output';
import { isRecord } from '../plan/model';
import { collectReferences } from '../plan/references';
import { fencedBlocks, jsonRegions, readJson } from './json-text';
import { textStart } from '../text-cut';

/** Which of the accepted shapes the answer was in. */
export type OutputFormat = 'plan' | 'steps' | 'seed003' | 'ndjson' | 'subtasks' | 'graph';

/** A plan candidate: `{goal?, success_criteria?, steps: [...]}` with step aliases resolved. */
export type PlanCandidate = Record<string, unknown> & { steps: unknown[] };

export type ParseResult =
  { ok: true; plan: PlanCandidate; format: OutputFormat } | { ok: false; error: string };

const EXPECTED =
  'expected one JSON object of the form {"steps": [{"id", "description", "action", "parameters", "dependencies"}, …]}';

/**
 * Extracts the plan from a model's raw answer.
 * @example
 * parsePlannerOutput('Here you go:\n```json\n{"steps": [{"id": "a", "action": "demo.echo"}]}\n```')
 * // { ok: true, format: 'plan', plan: { steps: [{ id: 'a', action: 'demo.echo' }] } }
 */
export function parsePlannerOutput(raw: string): ParseResult {
  const text = stripReasoning(raw).trim();
  if (text === '') return { ok: false, error: `The answer was empty; ${EXPECTED}.` };

  let firstError: string | undefined;
  for (const source of [text, ...fencedBlocks(text)]) {
    const result = parseSource(source.trim());
    if (result.ok) return result;
    firstError ??= result.error;
  }
  return { ok: false, error: firstError ?? `No JSON found in the answer; ${EXPECTED}.` };
}

/** One candidate text: the whole of it, NDJSON lines, then each bracketed region inside it. */
function parseSource(text: string): ParseResult {
  const whole = readJson(text);
  if (whole.ok) return shapeOrError(whole.value);

  const ndjson = parseNdjson(text);
  if (ndjson) return ndjson;

  let error: string | undefined;
  for (const region of jsonRegions(text)) {
    if (!region.complete) {
      error ??= `The JSON starting at character ${region.start} is incomplete (its brackets never close) — was the answer cut off? ${EXPECTED}.`;
      continue;
    }
    const read = readJson(region.text);
    if (!read.ok) {
      error ??= `Invalid JSON: ${read.error}`;
      continue;
    }
    const shaped = shapeOrError(read.value);
    if (shaped.ok) return shaped;
    error ??= shaped.error;
  }
  return { ok: false, error: error ?? `No JSON found in the answer; ${EXPECTED}.` };
}

function shapeOrError(value: unknown): ParseResult {
  return toCandidate(value) ?? { ok: false, error: describeWrongShape(value) };
}

/**
 * NDJSON (seed 003 streaming): one JSON value per line, each a `{"type":"step","step":{…}}` event, a
 * bare step, or plan-level fields; a `finish`/`done` line ends the plan. Prose lines are skipped,
 * but a line that looks like JSON and does not parse means this is not NDJSON (it is more likely a
 * pretty-printed object with a mistake, which the caller reports better).
 */
function parseNdjson(text: string): ParseResult | null {
  const steps: unknown[] = [];
  const header: Record<string, unknown> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = readNdjsonLine(raw);
    if (line === null || line.kind === 'reasoning') continue;
    if (line.kind === 'invalid') return null;
    if (line.kind === 'finish') break;
    if (line.kind === 'step') steps.push(line.step);
    else Object.assign(header, line.fields);
  }
  if (steps.length === 0) return null;
  return { ok: true, format: 'ndjson', plan: { ...header, steps } };
}

/** One NDJSON line, interpreted. */
export type NdjsonLine =
  | { kind: 'step'; step: Record<string, unknown> }
  | { kind: 'reasoning'; text: string }
  | { kind: 'finish' }
  | { kind: 'header'; fields: Record<string, unknown> }
  | { kind: 'invalid'; error: string };

/**
 * Reads one line of a seed-003 NDJSON stream: a `{"type":"step","step":{…}}` event (or a bare step),
 * reasoning, the end, or plan-level fields. `null` for a line that is not JSON at all (prose, a code
 * fence); `invalid` for one that looks like JSON and does not parse.
 * @example readNdjsonLine('{"type":"step","step":{"id":"a","tool":"demo.echo"}}') // { kind: 'step', step: { id: 'a', action: 'demo.echo' } }
 */
export function readNdjsonLine(raw: string): NdjsonLine | null {
  const line = raw.trim();
  if (!/^[[{}\]"]/.test(line)) return null;
  const read = readJson(line.replace(/,$/, ''));
  if (!read.ok) return { kind: 'invalid', error: `Invalid JSON line: ${read.error}` };
  if (!isRecord(read.value))
    return { kind: 'invalid', error: `The line ${textStart(line, 80)} is not a JSON object` };
  const item = read.value;
  const kind = typeof item.type === 'string' ? item.type : undefined;
  if (kind === 'step' && isRecord(item.step)) return { kind: 'step', step: toStep(item.step) };
  if (kind === 'finish' || kind === 'done' || kind === 'end') return { kind: 'finish' };
  if (kind === 'partialReasoning' || kind === 'reasoning' || kind === 'thought') {
    const text = item.text ?? item.partialReasoning ?? item.content;
    return { kind: 'reasoning', text: typeof text === 'string' ? text : '' };
  }
  if (typeof item.id === 'string' || typeof item.id === 'number') return { kind: 'step', step: toStep(item) };
  const fields: Record<string, unknown> = {};
  for (const k of ['goal', 'success_criteria'] as const) if (k in item) fields[k] = item[k];
  return { kind: 'header', fields };
}

/** The plan a parsed JSON value describes, in whichever accepted shape, or null. */
export function toCandidate(value: unknown): ParseResult | null {
  // Seed 004: a solution of `_tool` calls (`[{_tool, …}]` or `{calls: […]}`) with † references.
  const calls = Array.isArray(value)
    ? value
    : isRecord(value) && Array.isArray(value.calls)
      ? value.calls
      : null;
  if (calls && calls.length > 0 && calls.every((c) => isRecord(c) && typeof c._tool === 'string')) {
    const converted = convertToolCalls(calls);
    // A non-null `output` is the model's answer: run these calls, then end with it (seed 004).
    const output = isRecord(value) && !Array.isArray(value) ? value.output : undefined;
    if (converted.ok) {
      const plan = { ...converted.plan, steps: converted.plan.steps };
      if (output !== undefined && output !== null)
        plan.metadata = { ...plan.metadata, [FINAL_OUTPUT_KEY]: output };
      return { ok: true, format: 'steps', plan };
    }
  }
  if (Array.isArray(value)) {
    if (!value.every(isRecord)) return null;
    const steps = value.map((v) => (v.type === 'step' && isRecord(v.step) ? v.step : v));
    return { ok: true, format: 'steps', plan: { steps: steps.map(toStep) } };
  }
  if (!isRecord(value)) return null;
  if (value.type === 'step' && isRecord(value.step)) {
    return { ok: true, format: 'ndjson', plan: { steps: [toStep(value.step)] } };
  }
  // Wrappers models like to add: {"plan": {...}}, {"response": {...}}.
  for (const key of ['plan', 'response', 'result', 'output']) {
    const inner = value[key];
    if (isRecord(inner)) {
      const found = toCandidate(inner);
      if (found) return mergeHeader(value, found);
    }
  }
  const list = Array.isArray(value.steps)
    ? value.steps
    : Array.isArray(value.subtasks)
      ? value.subtasks
      : null;
  if (list) {
    const format: OutputFormat = !Array.isArray(value.steps)
      ? 'subtasks'
      : list.some((s) => isRecord(s) && ('toolId' in s || 'type' in s))
        ? 'seed003'
        : 'plan';
    const { subtasks: _subtasks, planId: _planId, ...rest } = value;
    const steps = list.filter((s) => !isFinish(s)).map(toStep);
    const plan: PlanCandidate = { ...rest, steps: format === 'seed003' ? inListedOrder(steps) : steps };
    return { ok: true, format, plan: withFinishResult(plan, list.find(isFinish)) };
  }
  if (isRecord(value.nodes)) return fromGraph(value.nodes, value.edges);
  return null;
}

/** Seed 003's `{nodes: {id: step}, edges: {id: [dependency ids]}}`. */
function fromGraph(nodes: Record<string, unknown>, edges: unknown): ParseResult {
  const deps = isRecord(edges) ? edges : {};
  const steps = Object.entries(nodes)
    .filter(([, node]) => !isFinish(node))
    .map(([id, node]) => {
      const step = toStep(isRecord(node) ? { id, ...node } : { id });
      const edge = deps[id];
      if (Array.isArray(edge) && step.dependencies === undefined) step.dependencies = edge.map(String);
      return step;
    });
  // `edges[id]` lists what node `id` waits for; without edges the nodes run in the order listed.
  const plan = { steps: isRecord(edges) ? steps.map(declared) : inListedOrder(steps) };
  return { ok: true, format: 'graph', plan: withFinishResult(plan, Object.values(nodes).find(isFinish)) };
}

/** A seed-003 `finish` step: the end of the plan, its `input` (or `result`) the run's answer. */
function isFinish(s: unknown): s is Record<string, unknown> {
  return isRecord(s) && s.type === 'finish';
}

function withFinishResult(plan: PlanCandidate, finish: Record<string, unknown> | undefined): PlanCandidate {
  const result = finish?.input ?? finish?.result;
  if (result === undefined || result === null) return plan;
  return {
    ...plan,
    metadata: { ...(isRecord(plan.metadata) ? plan.metadata : {}), [FINAL_OUTPUT_KEY]: result },
  };
}

/** A step with its dependencies declared as given (none: it waits for nothing but its references). */
function declared(step: Record<string, unknown>): Record<string, unknown> {
  return step.dependencies === undefined ? { ...step, dependencies: [] } : step;
}

/**
 * Seed 003's steps carry no dependencies: each runs after the one listed before it, unless it names
 * its own or refers to earlier steps' results (then those are what it waits for).
 */
function inListedOrder(steps: Record<string, unknown>[]): Record<string, unknown>[] {
  return steps.map((step, i) => {
    if (step.dependencies !== undefined) return step;
    const refersToSteps = collectReferences(step.parameters ?? {}).refs.some((r) => r.source === 'steps');
    const previous = steps[i - 1]?.id;
    return {
      ...step,
      dependencies: refersToSteps || typeof previous !== 'string' ? [] : [previous],
    };
  });
}

function mergeHeader(outer: Record<string, unknown>, found: ParseResult): ParseResult {
  if (!found.ok) return found;
  const plan = { ...found.plan };
  for (const k of ['goal', 'success_criteria'] as const)
    if (plan[k] === undefined && k in outer) plan[k] = outer[k];
  return { ...found, plan };
}

/** Step field names models use instead of ours, by our name; the first one present wins. */
const STEP_ALIASES: Record<string, readonly string[]> = {
  action: ['toolId', 'tool_id', 'tool', 'tool_name', '_tool'],
  parameters: ['input', 'params', 'args', 'arguments'],
  dependencies: ['depends_on', 'dependsOn', 'deps', 'after'],
  description: ['title', 'name', 'task'],
};

/**
 * One step with aliases resolved: seed 003's `toolId`/`input`/`meta`, other common names, numeric
 * ids. Fields the model got wrong in other ways are left for validation to report.
 */
function toStep(raw: unknown): Record<string, unknown> {
  if (!isRecord(raw)) return { value: raw };
  // A model's null is an omitted field (structured-output modes make optional fields nullable, and
  // models write "description": null, "action": null for a sub-plan step): the defaults apply.
  const step: Record<string, unknown> = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== null));
  const meta = isRecord(step.meta) ? step.meta : {};
  for (const [ours, theirs] of Object.entries(STEP_ALIASES)) {
    if (step[ours] !== undefined) continue;
    for (const name of theirs) {
      if (step[name] !== undefined && step[name] !== null) {
        step[ours] = step[name];
        delete step[name];
        break;
      }
    }
    if (step[ours] === undefined && meta[ours] !== undefined) step[ours] = meta[ours];
  }
  if (typeof step.id === 'number') step.id = String(step.id);
  if (Array.isArray(step.dependencies)) {
    step.dependencies = (step.dependencies as unknown[]).map((d) => (typeof d === 'number' ? String(d) : d));
  }
  // Seed 003 `message` steps say something to the user: `agent.message`, whose output is the message.
  if (step.type === 'message' && step.action === undefined) {
    step.action = 'agent.message';
    const p = step.parameters;
    if (typeof p === 'string') step.parameters = { message: p };
    else if (isRecord(p) && typeof p.message !== 'string') {
      const text = p.text ?? p.content ?? p.prompt;
      step.parameters = { message: typeof text === 'string' ? text : JSON.stringify(p) };
    }
  }
  // A non-object input (seed 003 allows any) becomes the tool's single `input` parameter.
  if (step.parameters !== undefined && step.parameters !== null && !isRecord(step.parameters)) {
    step.parameters = { input: step.parameters };
  }
  delete step.type;
  delete step.meta;
  if (isRecord(step.subplan)) {
    const sub = toCandidate(step.subplan);
    if (sub?.ok) step.subplan = sub.plan;
  }
  return step;
}

function describeWrongShape(value: unknown): string {
  if (isRecord(value)) {
    const keys = Object.keys(value).slice(0, 10);
    return `The JSON object has no "steps" array (its keys: ${keys.map((k) => `"${k}"`).join(', ') || 'none'}); ${EXPECTED}.`;
  }
  if (Array.isArray(value)) return `The JSON array holds values that are not step objects; ${EXPECTED}.`;
  return `The answer is a JSON ${value === null ? 'null' : typeof value}, not a plan; ${EXPECTED}.`;
}

/**
 * Drops `<think>…</think>` blocks reasoning models (DeepSeek-R1, Qwen) put before the answer, and the
 * reasoning before a lone `</think>` (R1's chat template opens the block in the prompt).
 */
function stripReasoning(text: string): string {
  // A block never closed (the answer was cut off while thinking) is reasoning to the end.
  return text
    .replace(/<think>[\s\S]*?<\/think>/gi, '')
    .replace(/^[\s\S]*?<\/think>/i, '')
    .replace(/<think>[\s\S]*$/i, '');
}

/**
 * A run as `/mcp` answers it: whole while its JSON fits what a model can read in one tool result,
 * in part past that. `GET /v1/runs/:id` of a 10,000-step run is megabytes (a 100,000-step one was
 * 19 MB, and 50.7 MB as a tool result, text and `structuredContent`) — far beyond any model's
 * context, so an agent driving a big run at `/mcp` could not read it at all.
 *
 * In part, the answer is the same Run object with: each value over {@link MCP_VALUE_CHARS} (a step's
 * result, the final output, a state variable) replaced by the API's `{$elided: {bytes, ref, href}}`
 * marker, which `get_run_value` reads; the approval's lists of changes cut to their first
 * {@link MCP_CHANGES_SHOWN}; and as many steps as fit — failed, running and retrying ones first, then
 * the others in plan order — each step whole (its plan entry, status, detail and result) or not at
 * all. `partial` says what was left out and how to read it. Counts, status, error and the rest are
 * always there: they are what a caller acts on.
 */
import { outputRef, varRef } from '../engine/snapshot';
import { valueHref } from '../engine/value-budget';
import { utf8Bytes } from '../engine/value-limits';
import { textStart } from '../text-cut';

/** Most characters of run JSON one `/mcp` answer carries (about 20,000 tokens: a tool result a model can read). */
export const MCP_RUN_CHARS = 60_000;
/** In an answer in part, a value longer than this (as JSON) is a marker: `get_run_value` reads it. */
export const MCP_VALUE_CHARS = 4_000;
/** In an answer in part, how many of each list of an approval's changes (added, changed, removed) are shown. */
export const MCP_CHANGES_SHOWN = 20;
/** Most steps `get_run`'s `step_ids` names in one call. */
export const MCP_STEP_IDS_MAX = 50;

type Json = Record<string, unknown>;

/** What an answer in part says of itself. */
export type PartialNote = {
  /** Characters of the whole run's JSON. */
  whole_chars: number;
  steps_total: number;
  steps_shown: number;
  /** Values left out for their size, each a marker in place. */
  values_elided: number;
  message: string;
};

/** Fewer characters than any step takes (its status and detail alone): past this, no other step fits. */
const MIN_STEP_CHARS = 100;
/** Room kept for the `partial` note itself. */
const NOTE_CHARS = 1_500;
/** In an answer in part, the state variables together past this are one marker (`state` reads them). */
const STATE_CHARS = 10 * MCP_VALUE_CHARS;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const chars = (v: unknown): number => JSON.stringify(v ?? null).length;
const isMarker = (v: unknown): boolean => isObject(v) && '$elided' in v;

/** The run's step ids in plan order (the plan's, else its status map's when the plan is itself a marker). */
function stepIds(run: Json): string[] {
  const plan = run.plan;
  if (isObject(plan) && Array.isArray(plan.steps))
    return plan.steps.flatMap((s) => (isObject(s) && typeof s.id === 'string' ? [s.id] : []));
  return isObject(run.step_statuses) ? Object.keys(run.step_statuses) : [];
}

/** A step a caller most needs to see: it failed, is running, or waits for a retry. */
function urgent(run: Json, id: string): boolean {
  const detail = isObject(run.steps) ? run.steps[id] : undefined;
  if (!isObject(detail)) return false;
  return detail.status === 'failed' || detail.status === 'running' || detail.retry_at !== undefined;
}

/** A copy of the run holding only `shown`'s steps (in plan order), its step maps and plan steps alike. */
function withSteps(run: Json, shown: ReadonlySet<string>): Json {
  const pick = (map: unknown): Json =>
    isObject(map) ? Object.fromEntries(Object.entries(map).filter(([id]) => shown.has(id))) : {};
  const plan = run.plan;
  const planned =
    isObject(plan) && Array.isArray(plan.steps)
      ? { ...plan, steps: plan.steps.filter((s) => isObject(s) && shown.has(s.id as string)) }
      : plan;
  return {
    ...run,
    plan: planned,
    step_statuses: pick(run.step_statuses),
    steps: pick(run.steps),
    step_results: pick(run.step_results),
  };
}

/** Each of `map`'s values longer than `max` replaced by a marker whose `ref` is `refOf(key)`. */
function elideValues(
  runId: string,
  map: unknown,
  refOf: (key: string) => string,
  max: number,
): { map: unknown; elided: number } {
  if (!isObject(map)) return { map, elided: 0 };
  let elided = 0;
  const out: Json = {};
  for (const [key, value] of Object.entries(map)) {
    const json = JSON.stringify(value ?? null);
    if (json.length > max && !isMarker(value)) {
      const ref = refOf(key);
      out[key] = { $elided: { bytes: utf8Bytes(json), ref, href: valueHref(runId, ref) } };
      elided++;
    } else out[key] = value;
  }
  return { map: out, elided };
}

/** The approval's changes with each list cut to its first {@link MCP_CHANGES_SHOWN} (its counts stay whole). */
function shortChanges(pending: unknown): { pending: unknown; cut: boolean } {
  if (!isObject(pending) || !isObject(pending.changes)) return { pending, cut: false };
  const changes = { ...pending.changes };
  let cut = false;
  for (const list of ['added', 'changed', 'removed']) {
    const items = changes[list];
    if (Array.isArray(items) && items.length > MCP_CHANGES_SHOWN) {
      changes[list] = items.slice(0, MCP_CHANGES_SHOWN);
      cut = true;
    }
  }
  return { pending: { ...pending, changes }, cut };
}

/**
 * The run with its values over `max` as markers: step results, the final output, state variables.
 * Values the API already left out stay as its markers.
 */
function elidedRun(run: Json, max: number): { run: Json; elided: number } {
  const runId = String(run.run_id);
  const results = elideValues(runId, run.step_results, outputRef, max);
  const vars = elideValues(runId, run.state, varRef, max);
  // Many short variables may still add up past what one answer carries: all of them, one marker.
  const state =
    chars(vars.map) > Math.max(STATE_CHARS, max)
      ? { map: (elideValues(runId, { state: run.state }, () => 'state', 0).map as Json).state, elided: 1 }
      : vars;
  const final = elideValues(runId, { final_output: run.final_output }, () => 'final_output', max);
  const goal = typeof run.goal === 'string' ? cutText(run.goal, max) : run.goal;
  const plan =
    isObject(run.plan) && typeof run.plan.goal === 'string'
      ? { ...run.plan, goal: cutText(run.plan.goal, max) }
      : run.plan;
  return {
    run: {
      ...run,
      goal,
      plan,
      step_results: results.map,
      state: state.map,
      final_output: (final.map as Json).final_output,
    },
    elided: results.elided + state.elided + final.elided,
  };
}

/** `text` whole while it is at most `max` characters; else its start (whole graphemes) and how long it is. */
function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${textStart(text, max)}… (${text.length.toLocaleString('en-US')} characters)`;
}

/**
 * `run` as `/mcp` answers it: itself when its JSON (`wholeChars` characters) fits {@link MCP_RUN_CHARS},
 * else in part with a `partial` note (see the file's comment).
 * @example boundedRun(run, JSON.stringify(run).length).partial?.steps_shown; // undefined for a small run
 */
export function boundedRun(run: Json, wholeChars: number): Json & { partial?: PartialNote } {
  if (wholeChars <= MCP_RUN_CHARS) return run;
  const values = elidedRun(run, MCP_VALUE_CHARS);
  const approval = shortChanges(values.run.pending_approval);
  const small: Json = { ...values.run, pending_approval: approval.pending };
  const ids = stepIds(small);
  // Failed, running and retrying steps first, then the rest in plan order: each whole or not at all.
  const order = [...ids.filter((id) => urgent(small, id)), ...ids.filter((id) => !urgent(small, id))];
  let left = MCP_RUN_CHARS - NOTE_CHARS - chars(withSteps(small, new Set()));
  const shown = new Set<string>();
  const planSteps = new Map<string, unknown>();
  const plan = small.plan;
  if (isObject(plan) && Array.isArray(plan.steps))
    for (const s of plan.steps) if (isObject(s)) planSteps.set(String(s.id), s);
  const entry = (map: unknown, id: string): number =>
    isObject(map) && map[id] !== undefined ? chars(map[id]) + chars(id) + 2 : 0;
  for (const id of order) {
    // No step is that small: the rest of a 100,000-step run is not measured one by one.
    if (left < MIN_STEP_CHARS) break;
    const cost =
      chars(planSteps.get(id)) +
      entry(small.step_statuses, id) +
      entry(small.steps, id) +
      entry(small.step_results, id);
    if (cost > left) continue;
    left -= cost;
    shown.add(id);
  }
  const message = partialMessage({
    whole: wholeChars,
    total: ids.length,
    shown: shown.size,
    elided: values.elided,
    changesCut: approval.cut,
  });
  return {
    ...withSteps(small, shown),
    partial: {
      whole_chars: wholeChars,
      steps_total: ids.length,
      steps_shown: shown.size,
      values_elided: values.elided,
      message,
    },
  };
}

function partialMessage(p: {
  whole: number;
  total: number;
  shown: number;
  elided: number;
  changesCut: boolean;
}): string {
  const n = (v: number) => v.toLocaleString('en-US');
  const parts = [
    `Whole, this answer would be ${n(p.whole)} characters of JSON, more than one answer here carries (${n(MCP_RUN_CHARS)}), so it is given in part.`,
  ];
  if (p.shown < p.total)
    parts.push(
      `${n(p.shown)} of its ${n(p.total)} steps are shown (failed, running and retrying ones first, then in plan order); counts has them all. Read other steps with get_run {run_id, step_ids: [...]} (up to ${MCP_STEP_IDS_MAX} a call), their events with get_run_events.`,
    );
  if (p.elided > 0)
    parts.push(
      `${n(p.elided)} value${p.elided === 1 ? ' is' : 's are'} longer than ${n(MCP_VALUE_CHARS)} characters and left out as {$elided: {bytes, ref}}: read one with get_run_value {run_id, ref} (a part of it too, e.g. ref "steps.<id>.output.items[0]").`,
    );
  if (p.changesCut)
    parts.push(
      `pending_approval.changes lists the first ${MCP_CHANGES_SHOWN} steps added, changed and removed (its counts are whole); read the plan's steps with step_ids.`,
    );
  return parts.join(' ');
}

/**
 * The run holding only the steps `requested` names (bounded as a whole run is), or the ids it does not have.
 * @example runSteps(run, ['fetch']).ok; // true: the run with plan.steps, step_statuses, steps, step_results of fetch alone
 */
export function runSteps(
  run: Json,
  requested: readonly string[],
): { ok: true; run: Json } | { ok: false; unknown: string[] } {
  const ids = new Set(stepIds(run));
  const unknown = requested.filter((id) => !ids.has(id));
  if (unknown.length > 0) return { ok: false, unknown };
  const picked = withSteps(run, new Set(requested));
  return { ok: true, run: boundedRun(picked, chars(picked)) };
}

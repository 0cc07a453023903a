/**
 * Moving a run's state between memory and its SQLite rows. Only what cannot be derived is stored: the
 * run-level fields, one row per step, the plan. The ready queue, running set and timers are rebuilt
 * from the step rows on load, so they can never disagree with them.
 */
import type { RunEvent } from '../engine/events';
import { stepEffectKey } from '../engine/idempotency';
import { emptyRunState, newStepRuntime, type RunState, type StepRuntime } from '../engine/state';
import { withStreamedStep } from '../engine/install-plan';
import { buildGraph } from '../plan/graph';
import { TERMINAL_RUN_STATUSES } from '../plan/model';
import { notJsonRow, parseConfigRow, parseMetaRow, parsePlanRow, parseStepRow } from './row-schemas';
import type { AttemptMark, AttemptRow } from './attempt-rows';
import type { SqlStore } from './sql-store';

type Meta = Omit<
  RunState,
  | 'input'
  | 'final_output'
  | 'steps'
  | 'plan'
  | 'graph'
  | 'ready'
  | 'running'
  | 'timers'
  | 'needs_decision'
  | 'unhandled_failures'
  | 'dirty'
>;

function metaOf(s: RunState): Meta {
  const {
    input: _input,
    final_output: _final,
    steps: _steps,
    plan: _plan,
    graph: _graph,
    ready: _ready,
    running: _running,
    timers: _timers,
    needs_decision: _nd,
    unhandled_failures: _uf,
    dirty: _dirty,
    ...meta
  } = s;
  return meta;
}

/**
 * Writes what the events just applied changed, in the same transaction as the events — many rows a
 * statement, and an attempt scheduled and begun in the same batch as one row.
 */
export function persist(store: SqlStore, state: RunState, events: readonly RunEvent[]): void {
  store.events.append(events);
  const journal = new AttemptJournal(store, state);
  let streamed = false;
  for (const e of events) {
    journal.add(e);
    if (e.event_type === 'PlanAuthored' || e.event_type === 'PlanUpdated') {
      store.putPlan(e.payload.plan.version, e.payload.plan.id, e.payload.plan, e.timestamp);
    }
    if (e.event_type === 'StepStreamed') streamed = true;
  }
  // The plan streamed in so far, until PlanAuthored replaces it: without it a new instance would load
  // no steps, and the stream planned again after a crash would run the steps that had run already.
  if (streamed && state.streaming && state.plan) {
    store.putPlan(state.plan.version, state.plan.id, state.plan, state.plan.created_at);
  }
  journal.flush();
  const rows: [string, Partial<StepRuntime>][] = [];
  for (const id of state.dirty) {
    const rt = state.steps.get(id);
    if (rt) rows.push([id, compactRuntime(rt)]);
    else store.deleteStep(id);
  }
  store.putSteps(rows);
  state.dirty.clear();
  // The run's fields in one value, rewritten only when they change — not its `seq`, which the event
  // log holds (load takes it from there), so a chain's steps do not rewrite the row each; its input and
  // final output — either may be large — each in one of their own, written only when they change, in
  // chunks when they are large.
  const { seq: _seq, ...fields } = metaOf(state);
  store.setMetaValueIfChanged('run', fields);
  for (const e of events) {
    if (e.event_type === 'RunCreated') store.setMetaValue(INPUT_KEY, state.input);
    if (e.event_type === 'RunTerminated' || e.event_type === 'RunResumed')
      store.setMetaValue(FINAL_OUTPUT_KEY, state.final_output);
  }
}

const INPUT_KEY = 'run_input';
const FINAL_OUTPUT_KEY = 'run_final_output';

/**
 * One row per attempt: scheduled → invoked → succeeded | failed. A batch's changes are merged per
 * attempt and written at the end: new rows whole, recorded ones as marks.
 */
class AttemptJournal {
  /** Attempts first recorded in this batch, by `step#attempt`. */
  readonly #fresh = new Map<string, AttemptRow>();
  /** Changes to attempts recorded before this batch, by `step#attempt`. */
  readonly #marks = new Map<string, AttemptMark>();

  constructor(
    private readonly store: SqlStore,
    private readonly state: RunState,
  ) {}

  add(e: RunEvent): void {
    if (e.event_type === 'StepScheduled') {
      const p = e.payload;
      this.#fresh.set(`${p.step_id}#${p.attempt}`, {
        step_id: p.step_id,
        attempt: p.attempt,
        plan_version: this.state.plan?.version ?? 1,
        action: p.action,
        idempotency_key: stepEffectKey(
          this.state.run_id,
          p.step_id,
          this.state.steps.get(p.step_id) ?? { key_version: 0 },
        ),
        dispatch: p.dispatch,
        status: 'scheduled',
        scheduled_at: e.timestamp,
        invoked_at: null,
        finished_at: null,
        error_code: null,
      });
    } else if (e.event_type === 'ToolInvoked') {
      Object.assign(this.#row(e.payload.step_id, e.payload.attempt), {
        status: 'invoked',
        invoked_at: e.timestamp,
      });
    } else if (e.event_type === 'ToolReturned') {
      const p = e.payload;
      Object.assign(this.#row(p.step_id, p.attempt), {
        status: p.success ? 'succeeded' : 'failed',
        finished_at: e.timestamp,
        error_code: p.error?.code ?? null,
      });
    }
  }

  /** The attempt's new row, or its marks when it was recorded before this batch. */
  #row(stepId: string, attempt: number): AttemptMark {
    const key = `${stepId}#${attempt}`;
    const fresh = this.#fresh.get(key);
    if (fresh) return fresh;
    let mark = this.#marks.get(key);
    if (!mark) {
      mark = {
        step_id: stepId,
        attempt,
        status: 'invoked',
        invoked_at: null,
        finished_at: null,
        error_code: null,
      };
      this.#marks.set(key, mark);
    }
    return mark;
  }

  flush(): void {
    this.store.attempts.put([...this.#fresh.values()]);
    this.store.attempts.mark([...this.#marks.values()]);
  }
}

/**
 * Rebuilds the in-memory state from the rows, or null for an object that holds no run. A row that does
 * not fit its schema, or is not JSON, throws the error the API answers with `run_unreadable`.
 */
export function load(store: SqlStore): RunState | null {
  try {
    return loadRows(store);
  } catch (err) {
    throw err instanceof SyntaxError ? notJsonRow(err) : err;
  }
}

function loadRows(store: SqlStore): RunState | null {
  const stored = store.getMetaValue('run');
  if (!stored.found) return null;
  // A run written before the input and final output had rows of their own has them here.
  const meta = parseMetaRow(stored.value);
  // Parsed with the defaults of fields added since it was stored.
  const config = parseConfigRow(meta.config);
  const state = emptyRunState(meta.run_id, config);
  // The last event's seq: the meta row no longer carries it (older rows do, never ahead of the log).
  Object.assign(state, meta, { config, seq: store.events.lastSeq() });
  const input = store.getMetaValue(INPUT_KEY);
  if (input.found) state.input = input.value;
  const final = store.getMetaValue(FINAL_OUTPUT_KEY);
  if (final.found) state.final_output = final.value;
  const plan = store.getPlan() ?? (state.streaming ? streamedSoFar(store, state) : null);
  if (plan === null || plan === undefined) return state;
  state.plan = parsePlanRow(plan);
  state.graph = buildGraph(state.plan.steps);
  const rows = new Map(store.steps());
  for (const [idx, step] of state.plan.steps.entries()) {
    const row = rows.get(step.id);
    if (row === undefined) continue;
    const rt = parseStepRow(step.id, expandRuntime(row as Partial<StepRuntime>));
    state.steps.set(step.id, rt);
    if (rt.status === 'running') {
      state.running.add(step.id);
      if (rt.deadline_at !== null) state.timers.set(step.id, rt.deadline_at);
    } else if (rt.retry_at !== null && (rt.status === 'pending' || rt.status === 'revised')) {
      state.timers.set(step.id, rt.retry_at);
    } else if (
      (rt.status === 'pending' || rt.status === 'revised') &&
      rt.waiting === 0 &&
      // As the fold has it: ready while the run waits for approval or input too, not once it ended.
      !TERMINAL_RUN_STATUSES.has(state.status)
    ) {
      state.ready.push(idx);
    }
    if (rt.status === 'failed' && !rt.handled) state.unhandled_failures.add(step.id);
  }
  return state;
}

/**
 * The plan of a run that was streaming it in when a release before 2026-11-27 stored it: that release
 * kept no plan row until the stream ended, only the steps' rows and StepStreamed events. Rebuilt from
 * the events, so the steps that ran are loaded as they are and a stream asked again does not run them
 * a second time.
 */
function streamedSoFar(store: SqlStore, state: RunState): RunState['plan'] {
  let plan: RunState['plan'] = null;
  for (const e of store.events.ofType('StepStreamed')) plan = withStreamedStep(plan, state, e);
  return plan;
}

/**
 * A step's runtime as its row stores it: the fields that differ from a new step's. Most steps of a
 * large plan are untouched when it is created (`{"waiting":1}`), so rows are short to write and read.
 * Field by field rather than in a loop over the keys: it runs for every step of a new plan.
 */
export function compactRuntime(rt: StepRuntime): Partial<StepRuntime> {
  const out: Partial<StepRuntime> = {};
  if (rt.status !== 'blocked') out.status = rt.status;
  if (rt.attempt !== 0) out.attempt = rt.attempt;
  if (rt.waiting !== 0) out.waiting = rt.waiting;
  if (rt.retries_used !== 0) out.retries_used = rt.retries_used;
  if (rt.fallback_used) out.fallback_used = true;
  if (rt.on_fallback) out.on_fallback = true;
  if (rt.handled) out.handled = true;
  if (rt.invoked) out.invoked = true;
  if (rt.retry_at !== null) out.retry_at = rt.retry_at;
  if (rt.deadline_at !== null) out.deadline_at = rt.deadline_at;
  if (rt.limit_ms !== null) out.limit_ms = rt.limit_ms;
  if (rt.started_at !== null) out.started_at = rt.started_at;
  if (rt.finished_at !== null) out.finished_at = rt.finished_at;
  if (rt.error !== null) out.error = rt.error;
  if (rt.latency_ms !== null) out.latency_ms = rt.latency_ms;
  if (rt.skip_reason !== null) out.skip_reason = rt.skip_reason;
  if (rt.dispatch !== null) out.dispatch = rt.dispatch;
  if (rt.key_version !== 0) out.key_version = rt.key_version;
  if (rt.visit !== 0) out.visit = rt.visit;
  if (rt.tool_version !== undefined) out.tool_version = rt.tool_version;
  return out;
}

/** A stored runtime (compact, or whole as rows were written before) as the engine's. */
export function expandRuntime(stored: Partial<StepRuntime>): StepRuntime {
  return { ...newStepRuntime(), ...stored };
}

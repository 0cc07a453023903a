/**
 * What the run's rows must hold when read back (STYLE §8: zod at every boundary, storage reads
 * included): the run's own fields, one row per step, the plan. A row that does not fit is a loud
 * error naming the row, not a run quietly going wrong. The plan is checked for its shape, not
 * re-validated: it was validated before it was stored.
 */
import { z } from 'zod';
import { SKIP_REASONS, type RunEvent } from '../engine/events';
import type { ParentRef } from '../engine/child-run';
import type { RunState, StepRuntime } from '../engine/state';
import { applyConfigAliases, RunConfigSchema, type RunConfig } from '../plan/config';
import { RunStatus, StepStatus, type Plan } from '../plan/model';

const ErrorInfoSchema = z.object({
  code: z.string(),
  message: z.string(),
  retryable: z.boolean(),
  details: z.unknown().optional(),
  retry_after_ms: z.number().int().min(0).optional(),
});

const StepRuntimeSchema = z.object({
  status: z.enum(StepStatus),
  attempt: z.number().int().min(0),
  waiting: z.number().int().min(0),
  retries_used: z.number().int().min(0),
  fallback_used: z.boolean(),
  on_fallback: z.boolean(),
  handled: z.boolean(),
  invoked: z.boolean(),
  retry_at: z.number().nullable(),
  deadline_at: z.number().nullable(),
  // Rows written before a tool's own limit was kept have none: the step's timeout, as before.
  limit_ms: z.number().int().min(1).nullable().default(null),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  error: ErrorInfoSchema.nullable(),
  latency_ms: z.number().nullable(),
  skip_reason: z.enum(SKIP_REASONS).nullable(),
  dispatch: z.enum(['queue', 'inline']).nullable(),
  // Rows written before idempotency keys carried the plan version have none: never replaced.
  key_version: z.number().int().min(0).default(0),
  visit: z.number().int().min(0).default(0),
  // Rows written before ToolReturned named its tool's version have none: the event names none.
  tool_version: z.string().optional(),
}) satisfies z.ZodType<StepRuntime, unknown>;

const MetaSchema = z.looseObject({
  run_id: z.string(),
  status: z.enum(RunStatus),
  goal: z.string(),
  config: z.unknown(),
  // Written by older versions only: the seq is the event log's last.
  seq: z.number().int().min(0).optional(),
  revision_count: z.number().int().min(0),
  token_usage: z.object({
    prompt_tokens: z.number(),
    completion_tokens: z.number(),
    total_tokens: z.number(),
  }),
  error: ErrorInfoSchema.nullable(),
  // Written since iterative runs say the limit that stopped their turns; older rows have none.
  limit_reached: z
    .object({ setting: z.literal('max_steps'), value: z.number(), turns: z.number(), message: z.string() })
    .nullish(),
});

const PlanShapeSchema = z.looseObject({
  id: z.string(),
  version: z.number().int().min(1),
  goal: z.string(),
  steps: z.array(z.looseObject({ id: z.string(), action: z.string() })),
});

/**
 * An event of the log as {@link eventJson} wrote it: the envelope is checked, the payload (whose
 * shape is its type's) is not — the log is read a page at a time on every replay and backlog, and
 * the envelope is what its readers go by (seq, type, step).
 */
const EventEnvelopeSchema = z.looseObject({
  event_id: z.string(),
  seq: z.number().int().min(1),
  event_type: z.string(),
  timestamp: z.string(),
  actor: z.string(),
  references: z.looseObject({}),
  payload: z.unknown(),
});

/** One event read back from the log: one whose envelope does not fit is the `run_unreadable` error. */
export function parseEventRow(seq: number, value: unknown): RunEvent {
  return parseRow(`event ${seq}`, EventEnvelopeSchema, value) as unknown as RunEvent;
}

/** The run's fields from its `run` meta row (the config is parsed by its own schema after this). */
export function parseMetaRow(value: unknown): Partial<RunState> & { run_id: string; config: unknown } {
  return parseRow('run meta', MetaSchema, value) as Partial<RunState> & {
    run_id: string;
    config: unknown;
  };
}

export function parseStepRow(stepId: string, value: unknown): StepRuntime {
  return parseRow(`step ${stepId}`, StepRuntimeSchema, value);
}

export function parsePlanRow(value: unknown): Plan {
  return parseRow('plan', PlanShapeSchema, value) as unknown as Plan;
}

/**
 * The plan a caller sent the run's object as text (`plan_json`, validated by the Worker before it was
 * sent), read through the plan's shape — it is what the run stores — or why it cannot be: text that
 * is not JSON or not a plan (a Worker of another release, mid-deployment) is refused, not cast.
 */
export function sentPlan(text: string): { ok: true; plan: Plan } | { ok: false; message: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, message: `The plan sent to the run is not JSON (${(err as Error).message})` };
  }
  const r = PlanShapeSchema.safeParse(value);
  if (r.success) return { ok: true, plan: r.data as unknown as Plan };
  return { ok: false, message: `The plan sent to the run is not a plan (${z.prettifyError(r.error)})` };
}

/** A plan from a cache (KV), or null when what is there is not one: the cache is read past, not trusted. */
export function cachedPlan(value: unknown): Plan | null {
  const r = PlanShapeSchema.safeParse(value);
  return r.success ? (r.data as unknown as Plan) : null;
}

/** A child run's `parent` meta row: the parent attempt it reports to (run-parent.ts). */
export const ParentRefSchema = z.object({
  run_id: z.string().min(1),
  step_id: z.string().min(1),
  attempt: z.number().int().min(0),
  root_run_id: z.string().min(1).optional(),
  depth: z.number().int().min(1).optional(),
}) satisfies z.ZodType<ParentRef, unknown>;

/** The run's config as stored, with the defaults of fields added since (seed aliases applied). */
export function parseConfigRow(value: unknown): RunConfig {
  return parseRow('run config', RunConfigSchema, applyConfigAliases(value ?? {}));
}

/**
 * How the message of a run whose rows cannot be read begins: the error crosses RPC as text only, and
 * the API answers it with `run_unreadable` ({@link isUnreadableRun}).
 */
const UNREADABLE = 'Run state unreadable:';

/** Whether `err` is a run's row that does not fit its schema (thrown here, maybe across RPC). */
export function isUnreadableRun(err: unknown): err is Error {
  return err instanceof Error && err.message.includes(UNREADABLE);
}

/** What an unreadable run's message goes on to say, whatever did not fit. */
const UNREADABLE_TAIL =
  'A release that stored it differently wrote it, and this one cannot load the run; nothing was ' +
  'changed. Report it with the run id and this message; meanwhile the release that wrote the run ' +
  'can still serve it.';

/**
 * A run's row whose text is not JSON at all (cut short, or written by something else than edgeplan):
 * unreadable as a row that does not fit its schema is, not an anonymous `internal`.
 */
export function notJsonRow(err: SyntaxError): Error {
  return new Error(`${UNREADABLE} one of its stored rows is not JSON (${err.message}). ${UNREADABLE_TAIL}`);
}

/**
 * A run's row stored as JSON text, read through its schema: text that is not JSON, or JSON that does
 * not fit, throws the error the API answers with `run_unreadable`, naming the row.
 * @example const parent = parseJsonRow('parent', ParentRefSchema, store.getMeta('parent'))
 */
export function parseJsonRow<T>(what: string, schema: z.ZodType<T>, text: string): T {
  return parseRow(what, schema, jsonRow(what, text));
}

/** A run's row's JSON text parsed: text that is not JSON throws the `run_unreadable` error. */
export function jsonRow(what: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(
      `${UNREADABLE} its stored ${what} is not JSON (${err instanceof Error ? err.message : String(err)}). ${UNREADABLE_TAIL}`,
      {
        cause: err,
      },
    );
  }
}

/**
 * A run's stored row — SQLite, D1 (a `.first<T>()` / `.all<T>()` generic is a cast) — read through
 * its schema: one that does not fit throws the `run_unreadable` error naming it.
 */
export function parseRow<T>(what: string, schema: z.ZodType<T>, value: unknown): T {
  const r = schema.safeParse(value);
  if (!r.success)
    throw new Error(
      `${UNREADABLE} its stored ${what} does not fit this release's schema (${z.prettifyError(r.error)}). ` +
        UNREADABLE_TAIL,
    );
  return r.data;
}

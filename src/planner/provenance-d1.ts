/**
 * {@link ProvenanceStore} in D1 (`migrations/0002_planning.sql`, 0004, 0005): an attempt row and its model's
 * reliability counters are written in one batch, so the two never disagree.
 */
import { z } from 'zod';
import { FindingCode, type Finding } from '../plan/findings';
import { log } from '../log';
import type { FormatMode } from './chat';
import type { PlanningAttempt, ProvenanceStore } from './provenance';
import { withRates } from './reliability';
import type { AttemptOutcome, ModelReliability } from './reliability';

const INSERT_ATTEMPT = `INSERT INTO planning_attempts (id, planning_id, seq, model, temperature, template_id,
  template_version, retry, candidate, response_format, prompt, raw_output, outcome, error, parse_format,
  findings_json, prompt_tokens, completion_tokens, latency_ms, plan_id, strategy, created_at, run_id,
  tokens_estimated)
  VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23,
  ?24)
  ON CONFLICT (id) DO NOTHING`;

// Counters are added in SQL, so concurrent planners in different isolates never lose an update; and
// only when the attempt row was new (`changes()` is the INSERT's), so recording an attempt again
// after a lost reply does not count it twice.
const UPSERT_RELIABILITY = `INSERT INTO model_reliability (model, attempts, successes, parse_failures,
  validation_failures, call_failures, total_latency_ms, updated_at)
  SELECT ?1, 1, ?2, ?3, ?4, ?5, ?6, ?7 WHERE changes() = 1
  ON CONFLICT (model) DO UPDATE SET attempts = attempts + 1, successes = successes + excluded.successes,
  parse_failures = parse_failures + excluded.parse_failures,
  validation_failures = validation_failures + excluded.validation_failures,
  call_failures = call_failures + excluded.call_failures,
  total_latency_ms = total_latency_ms + excluded.total_latency_ms, updated_at = excluded.updated_at`;

const AttemptRow = z.object({
  id: z.string(),
  planning_id: z.string(),
  seq: z.number(),
  model: z.string(),
  temperature: z.number().nullable(),
  template_id: z.string(),
  template_version: z.string(),
  retry: z.number(),
  candidate: z.number(),
  response_format: z.enum(['json_schema', 'json_object', 'text']),
  prompt: z.string(),
  raw_output: z.string().nullable(),
  outcome: z.enum(['ok', 'call_error', 'parse_error', 'invalid']),
  error: z.string().nullable(),
  parse_format: z.string().nullable(),
  findings_json: z.string(),
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  latency_ms: z.number(),
  plan_id: z.string().nullable(),
  strategy: z.string(),
  created_at: z.string(),
  run_id: z.string().nullish(),
  /** 1 when the token counts were estimated (migration 0005; 0 for rows written before it). */
  tokens_estimated: z.union([z.literal(0), z.literal(1)]).default(0),
});

/**
 * What `findings_json` holds: the attempt's findings as {@link D1ProvenanceStore.recordAttempt} wrote
 * them. Read back through this schema, not cast: a row written by hand or by another release that does
 * not fit it is reported (see {@link fromRow}), never served as findings.
 */
const StoredFindings = z.array(
  z.object({
    code: z.enum(FindingCode),
    message: z.string(),
    step_id: z.string().optional(),
    path: z.array(z.union([z.string(), z.number()])).optional(),
  }),
) satisfies z.ZodType<Finding[], unknown>;

const ReliabilityRow = z.object({
  model: z.string(),
  attempts: z.number(),
  successes: z.number(),
  parse_failures: z.number(),
  validation_failures: z.number(),
  call_failures: z.number(),
  total_latency_ms: z.number(),
  updated_at: z.string(),
});

/** A prepared statement, as much of `D1PreparedStatement` as the store uses. */
export type D1StatementLike = {
  bind(...values: unknown[]): D1StatementLike;
  all(): Promise<{ results: unknown[] }>;
};

/**
 * The subset of `D1Database` the store needs: written out, so the library's types do not depend on
 * the Workers types a plain Node project does not have.
 */
export type D1Like = {
  prepare(query: string): D1StatementLike;
  batch(statements: D1StatementLike[]): Promise<unknown>;
};

/**
 * Provenance in D1. A store made for a run (`{ runId }`) files each attempt under it, so the run's
 * planning trace finds the attempts of a planning that failed and named no plan.
 * @example const store = new D1ProvenanceStore(env.DB, { runId }); await store.attemptsForRun(runId);
 */
export class D1ProvenanceStore implements ProvenanceStore {
  readonly #db: D1Like;
  readonly runId: string | null;

  constructor(db: D1Like, options: { runId?: string } = {}) {
    this.#db = db;
    this.runId = options.runId ?? null;
  }

  async recordAttempt(a: PlanningAttempt): Promise<void> {
    const flag = (o: AttemptOutcome) => (a.outcome === o ? 1 : 0);
    await this.#db.batch([
      this.#db
        .prepare(INSERT_ATTEMPT)
        .bind(
          a.id,
          a.planning_id,
          a.seq,
          a.model,
          a.temperature,
          a.template_id,
          a.template_version,
          a.retry,
          a.candidate,
          a.response_format,
          a.prompt,
          a.raw_output,
          a.outcome,
          a.error,
          a.parse_format,
          JSON.stringify(a.findings satisfies z.input<typeof StoredFindings>),
          a.prompt_tokens,
          a.completion_tokens,
          Math.round(a.latency_ms),
          a.plan_id,
          a.strategy,
          a.created_at,
          this.runId,
          a.tokens_estimated ? 1 : 0,
        ),
      this.#db
        .prepare(UPSERT_RELIABILITY)
        .bind(
          a.model,
          flag('ok'),
          flag('parse_error'),
          flag('invalid'),
          flag('call_error'),
          Math.max(0, Math.round(a.latency_ms)),
          a.created_at,
        ),
    ]);
  }

  async attempts(planningId: string): Promise<PlanningAttempt[]> {
    const { results } = await this.#db
      .prepare('SELECT * FROM planning_attempts WHERE planning_id = ?1 ORDER BY seq')
      .bind(planningId)
      .all();
    return results.flatMap(readAttempt);
  }

  /**
   * Every attempt of the planning requests that produced plan `planId` (a run's first plan and its
   * revisions keep the plan's id), oldest first: failed attempts and repairs included.
   */
  async attemptsForPlan(planId: string, limit = 200): Promise<PlanningAttempt[]> {
    const { results } = await this.#db
      .prepare(
        `SELECT * FROM planning_attempts WHERE planning_id IN
           (SELECT planning_id FROM planning_attempts WHERE plan_id = ?1)
         ORDER BY created_at, planning_id, seq LIMIT ?2`,
      )
      .bind(planId, limit)
      .all();
    return results.flatMap(readAttempt);
  }

  /** Every attempt filed under run `runId` (its plannings and revisions, failed ones included), oldest first. */
  async attemptsForRun(runId: string, limit = 200): Promise<PlanningAttempt[]> {
    const { results } = await this.#db
      .prepare(
        `SELECT * FROM planning_attempts WHERE run_id = ?1
         ORDER BY created_at, planning_id, seq LIMIT ?2`,
      )
      .bind(runId, limit)
      .all();
    return results.flatMap(readAttempt);
  }

  /** The attempts with these ids (a planning that failed: its attempts name no plan), oldest first. */
  async attemptsByIds(ids: readonly string[]): Promise<PlanningAttempt[]> {
    if (ids.length === 0) return [];
    const { results } = await this.#db
      .prepare(
        `SELECT * FROM planning_attempts WHERE id IN (SELECT value FROM json_each(?1))
         ORDER BY created_at, planning_id, seq`,
      )
      .bind(JSON.stringify(ids))
      .all();
    return results.flatMap(readAttempt);
  }

  async reliability(models?: readonly string[]): Promise<Map<string, ModelReliability>> {
    const stmt =
      models === undefined
        ? this.#db.prepare('SELECT * FROM model_reliability')
        : this.#db
            .prepare('SELECT * FROM model_reliability WHERE model IN (SELECT value FROM json_each(?1))')
            .bind(JSON.stringify(models));
    const { results } = await stmt.all();
    const out = new Map<string, ModelReliability>();
    for (const r of results) {
      const row = ReliabilityRow.parse(r);
      out.set(row.model, withRates(row));
    }
    return out;
  }
}

/**
 * One stored attempt as served, or none. The trace is for looking back at what planning did, so one
 * row this release cannot read (another release's, or edited by hand) does not cost the others: a row
 * that does not fit is left out, and a row whose findings do not fit is served with none — each logged
 * as `planning_attempt_unreadable`, naming the attempt and what did not fit, for the operator (the
 * row stays as it is in D1). Before, such a row made the whole trace answer 500.
 */
function readAttempt(raw: unknown): PlanningAttempt[] {
  const row = AttemptRow.safeParse(raw);
  if (row.success) return [fromRow(row.data)];
  unreadable(raw, 'left out', row.error);
  return [];
}

function fromRow(row: z.infer<typeof AttemptRow>): PlanningAttempt {
  const { findings_json, response_format, run_id: _run, tokens_estimated, ...rest } = row;
  return {
    ...rest,
    response_format: response_format satisfies FormatMode,
    findings: findingsOf(row, findings_json),
    ...(tokens_estimated === 1 ? { tokens_estimated: true as const } : {}),
  };
}

function findingsOf(row: z.infer<typeof AttemptRow>, text: string): Finding[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    unreadable(row, 'served without its findings (not JSON)', err);
    return [];
  }
  const findings = StoredFindings.safeParse(value);
  if (findings.success) return findings.data;
  unreadable(row, 'served without its findings', findings.error);
  return [];
}

function unreadable(raw: unknown, what: string, error: unknown): void {
  const r = (typeof raw === 'object' && raw !== null ? raw : {}) as { id?: unknown; run_id?: unknown };
  log('planning_attempt_unreadable', `planning attempt ${String(r.id)}: unreadable row, ${what}`, {
    ...(typeof r.run_id === 'string' ? { run_id: r.run_id } : {}),
    error,
  });
}

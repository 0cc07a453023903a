/**
 * What the dashboard reads that did not come through the typed client: JSON typed into a form (a new
 * run's config and input, a modified plan) and the approval page's data embedded in its HTML. Each is
 * checked with zod (the mini build: ~6 KiB gzip of the bundle), so one that does not parse or fit is an
 * error the page shows, naming the field, never an exception that leaves the page blank or a cast
 * that sends whatever it was. The server checks the content again; these only check the shape.
 */
import * as z from 'zod/mini';
import type { ApprovalChanges, Estimates, Plan } from '../client';
import { isInputShape, type InputShape } from '../plan/input-shape';
import { issueText } from '../issue-text';

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** A plan's shape: an object with a list of steps (its content is the server's to validate). */
const PlanShape = z.custom<Plan>(
  (v) => isObject(v) && Array.isArray(v.steps),
  'expected a plan: a JSON object with a "steps" list',
);

const ConfigShape = z.custom<Record<string, unknown>>(isObject, 'expected a JSON object ({ … })');

/** The approval link's page data (src/http/routes/approval-page.ts writes it). */
const ApprovalDataShape = z.object({
  run_id: z.string(),
  goal: z.string(),
  plan: PlanShape,
  estimates: z.custom<Estimates>(isObject, 'expected the plan’s estimates'),
  expires_at: z.number(),
  token: z.string(),
  inferred: z.optional(z.record(z.string(), z.array(z.string()))),
  // A revision's: the last approved version and what this one changes since (approval-changes.tsx).
  last_approved_version: z.optional(z.nullable(z.number())),
  // Steps the decision does not run (a revision's done, skipped or running ones): set apart.
  kept: z.optional(z.record(z.string(), z.enum(['done', 'skipped', 'running']))),
  // The run's validation limits (max_steps, …): Modify's editor checks an edit against them.
  limits: z.optional(
    z.object({
      max_steps: z.number(),
      max_depth: z.number(),
      token_budget: z.nullable(z.number()),
      require_fallbacks: z.boolean(),
    }),
  ),
  // The run's input as kinds, no values: what Modify's editor checks an edit's {{ input.… }} against.
  input_shape: z.optional(z.custom<InputShape>((v) => isInputShape(v), 'expected the input’s shape')),
  changes: z.optional(
    z.nullable(
      z.custom<ApprovalChanges>(
        (v) => isObject(v) && typeof v.summary === 'string' && Array.isArray(v.changed),
        'expected what the plan changes since the approved version',
      ),
    ),
  ),
});
export type ApprovalData = z.infer<typeof ApprovalDataShape>;

/** Text typed as JSON for `what`, parsed and checked; empty text is `undefined`. */
function typedJson<T>(what: string, text: string, schema: z.ZodMiniType<T>): Checked<T | undefined> {
  if (!text.trim()) return { ok: true, value: undefined };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `${what} is not JSON: ${(e as Error).message}` };
  }
  return checked(what, schema, value);
}

function checked<T>(what: string, schema: z.ZodMiniType<T>, value: unknown): Checked<T> {
  const r = schema.safeParse(value);
  if (r.success) return { ok: true, value: r.data };
  const issue = r.error.issues[0];
  const at = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
  return { ok: false, error: `${what}${at}: ${issue ? issueText(issue) : 'does not fit'}` };
}

/**
 * A new run's config as typed: a JSON object, or nothing.
 * @example configOf('[1]') // { ok: false, error: 'Config: expected a JSON object ({ … })' }
 */
export const configOf = (text: string) => typedJson('Config', text, ConfigShape);

/** A new run's input as typed: any JSON, or nothing. */
export const inputOf = (text: string) => typedJson('Input', text, z.unknown());

/** A modified plan as typed in the editor: a plan as JSON (the approval takes no other format). */
export function modifiedPlanOf(text: string): Checked<Plan> {
  const r = typedJson('The plan', text, PlanShape);
  if (!r.ok) return r;
  return r.value === undefined ? { ok: false, error: 'The plan is empty' } : { ok: true, value: r.value };
}

/**
 * The approval page's data, from the text of its `<script id="edgeplan-data">`: `null` when the page
 * carries none (the dashboard), an error when what it carries does not fit.
 */
export function approvalDataOf(text: string | null | undefined): Checked<ApprovalData> | null {
  if (!text) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `The page's data is not JSON: ${(e as Error).message}` };
  }
  if (!isObject(value) || value.approval === undefined) return null;
  return checked("The page's approval data", ApprovalDataShape, value.approval);
}

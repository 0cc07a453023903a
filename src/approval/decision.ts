/**
 * The body of `POST /v1/runs/:id/approval` (SPEC §6): approve, reject, or modify the plan awaiting
 * approval, the last either with a whole new plan or with a list of edits made in a UI.
 */
import { z } from 'zod';
import { unknownKeysError } from '../plan/key-suggestions';
import { PlanEditSchema } from './edits';
import { issueText } from '../issue-text';

export { applyEdits, PlanEditSchema, StepChangesSchema } from './edits';
export type { ApplyEditsResult, PlanEdit, StepChanges } from './edits';

/** The longest name an approver may give. */
export const MAX_APPROVER_NAME = 120;

/**
 * The name a decider gives (`approver`), recorded on `ApprovalGranted` / `ApprovalRejected` as given:
 * a label for the history, never an identity — anyone holding the API token or the link can send any.
 * Trimmed; one line of 1–120 characters (a line break would forge a line of `edgeplan show`).
 */
export const ApproverNameSchema = z
  .string()
  .trim()
  .min(1, 'give a name of at least one visible character, or leave `approver` out')
  .max(MAX_APPROVER_NAME, `a name of at most ${MAX_APPROVER_NAME} characters`)
  // eslint-disable-next-line no-control-regex -- control characters are what it refuses
  .refine((s) => !/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(s), {
    message: 'a name on one line, without control characters (line breaks, tabs)',
  });

/** More than this many edits should be sent as a whole `plan`. */
export const MAX_EDITS = 1000;

export const Decision = { approve: 'approve', reject: 'reject', modify: 'modify' } as const;
export type Decision = (typeof Decision)[keyof typeof Decision];

/**
 * `{decision, plan?, comment?, edits?, approver?, plan_version?}`. `modify` needs exactly one of `plan` (any JSON here: a
 * malformed plan comes back from validation as findings, like `POST /v1/runs`) and `edits`;
 * `approve` and `reject` take neither. A `null` plan or comment counts as absent; any other key is refused.
 * @example
 * const body = ApprovalDecisionSchema.parse({
 *   decision: 'modify',
 *   edits: [{ op: 'set_dependencies', step_id: 'report', dependencies: ['search'] }],
 * });
 */
const DECISION_SHAPE = {
  decision: z.enum(Decision),
  plan: z.unknown().optional(),
  comment: z.string().max(10_000).nullish(),
  approver: ApproverNameSchema.nullish(),
  edits: z.array(PlanEditSchema).min(1).max(MAX_EDITS).optional(),
  // The version the decider looked at: refused (409 plan_version_changed) if another awaits now.
  plan_version: z.number().int().min(1).nullish(),
};

// Strict: a misspelt `coment` was dropped, and the approver's comment with it.
export const ApprovalDecisionSchema = z
  .strictObject(DECISION_SHAPE, { error: unknownKeysError(Object.keys(DECISION_SHAPE)) })
  .superRefine((body, ctx) => {
    const hasPlan = body.plan !== undefined && body.plan !== null;
    const hasEdits = body.edits !== undefined;
    if (body.decision === 'modify') {
      if (!hasPlan && !hasEdits) {
        ctx.addIssue({
          code: 'custom',
          path: ['edits'],
          message: "decision 'modify' needs either a whole `plan` or a list of `edits`",
        });
      } else if (hasPlan && hasEdits) {
        ctx.addIssue({ code: 'custom', path: ['plan'], message: 'send either `plan` or `edits`, not both' });
      }
      return;
    }
    for (const [field, present] of [
      ['plan', hasPlan],
      ['edits', hasEdits],
    ] as const) {
      if (present) {
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: `\`${field}\` is only accepted with decision 'modify', not '${body.decision}'`,
        });
      }
    }
  });
export type ApprovalDecision = z.infer<typeof ApprovalDecisionSchema>;

/** One problem with an approval body: where, and what is wrong. */
export type DecisionIssue = { path: (string | number)[]; message: string; code: string };

/**
 * Parses an approval body as received, with a message naming each problem's field.
 * @example parseApprovalDecision({ decision: 'maybe' }).ok // false
 */
export function parseApprovalDecision(
  body: unknown,
): { ok: true; value: ApprovalDecision } | { ok: false; message: string; issues: DecisionIssue[] } {
  const parsed = ApprovalDecisionSchema.safeParse(body);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issues = parsed.error.issues.map((i) => ({
    path: i.path.map((p) => (typeof p === 'number' ? p : String(p))),
    message: issueText(i),
    code: i.code,
  }));
  const message = issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
  return { ok: false, message: `Invalid approval: ${message}`, issues };
}

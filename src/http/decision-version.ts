/**
 * A decision's `plan_version` handed to the run beside its body, not in it. A run object of the
 * release before it (a deploy rolling out) parses the body strictly and refused the key as unknown —
 * every decision from this release's dashboard, link page and CLI, which send it, was `400` there;
 * as an argument of its own, that object ignores it and takes the decision unchecked, as it did
 * before. A value that is no version stays in the body, for the run's schema to refuse in its words.
 */

/**
 * The body without a well-formed `plan_version`, and that version (undefined when there is none).
 * @example decisionVersion({ decision: 'approve', plan_version: 2 }) // { body: { decision: 'approve' }, planVersion: 2 }
 */
export function decisionVersion(body: unknown): { body: unknown; planVersion: number | undefined } {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return { body, planVersion: undefined };
  const { plan_version: v, ...rest } = body as Record<string, unknown>;
  if (typeof v === 'number' && Number.isInteger(v) && v >= 1) return { body: rest, planVersion: v };
  return { body, planVersion: undefined };
}

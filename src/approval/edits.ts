/**
 * The edits a human makes to a plan awaiting approval (SPEC §6 `modify`), and applying them. Edits
 * apply in order, each to the result of the one before, without touching the input plan. The result
 * is not validated here: the engine validates it like any new version, so a bad edit comes back as
 * findings (a cycle, an unknown dependency) rather than as a second set of rules.
 */
import { z } from 'zod';
import { unknownKeysError } from '../plan/key-suggestions';
import { PlanStepInputSchema, normalizePlan, normalizeStep } from '../plan/model';
import type { NormalizeOptions, Plan, PlanStep } from '../plan/model';

/** A step's fields, refusing a misspelt one by name (a dropped `dependecies` would not wait). */
function strictStep<T extends z.ZodRawShape>(shape: T) {
  return z.strictObject(shape, { error: unknownKeysError(Object.keys(shape)) });
}

/** Fields an `update_step` may set; each replaces the old value whole. `null` clears a field. */
export const StepChangesSchema = strictStep(PlanStepInputSchema.omit({ id: true }).shape);
export type StepChanges = z.infer<typeof StepChangesSchema>;

export const PlanEditSchema = z.discriminatedUnion('op', [
  z.strictObject({ op: z.literal('update_step'), step_id: z.string().min(1), changes: StepChangesSchema }),
  z.strictObject({ op: z.literal('remove_step'), step_id: z.string().min(1) }),
  /** Inserted after `after`, or at the end when `after` is omitted. */
  z.strictObject({
    op: z.literal('add_step'),
    step: strictStep(PlanStepInputSchema.shape),
    after: z.string().min(1).optional(),
  }),
  /** `to_index` is the step's position in the resulting list; the others keep their order. */
  z.strictObject({
    op: z.literal('move_step'),
    step_id: z.string().min(1),
    to_index: z.number().int().min(0),
  }),
  z.strictObject({
    op: z.literal('set_dependencies'),
    step_id: z.string().min(1),
    dependencies: z.array(z.string()),
  }),
]);
export type PlanEdit = z.infer<typeof PlanEditSchema>;

export type ApplyEditsResult = { ok: true; plan: Plan } | { ok: false; message: string };

/**
 * Applies `edits` to `plan` and returns the edited copy (same `id` and `version`: the engine
 * validates it and assigns the next version). Refuses, naming the edit and the id, an edit whose
 * step does not exist, an `add_step` whose id is taken or whose `after` does not exist, and a
 * `to_index` outside the plan. Removing a step leaves other steps' dependencies on it in place,
 * for validation to report, rather than silently re-wiring the graph.
 * @example
 * const r = applyEdits(plan, [
 *   { op: 'update_step', step_id: 'search', changes: { parameters: { q: 'edge runtimes' } } },
 *   { op: 'move_step', step_id: 'summarise', to_index: 0 },
 * ]);
 * if (!r.ok) return jsonError(c, 'invalid_request', r.message);
 */
export function applyEdits(plan: Plan, edits: readonly PlanEdit[]): ApplyEditsResult {
  const steps = [...plan.steps];
  for (const [i, edit] of edits.entries()) {
    const where = `edits[${i}] (${edit.op})`;
    const indexOf = (id: string): number => steps.findIndex((s) => s.id === id);
    const noStep = (id: string) => ({
      ok: false as const,
      message: `${where}: no step "${id}" in plan ${plan.id} (it has ${steps.length} steps)`,
    });

    switch (edit.op) {
      case 'update_step': {
        const at = indexOf(edit.step_id);
        const step = steps[at];
        if (!step) return noStep(edit.step_id);
        steps[at] = updateStep(step, edit.changes, normalizeOptions(plan, step.id));
        break;
      }
      case 'remove_step': {
        const at = indexOf(edit.step_id);
        if (at < 0) return noStep(edit.step_id);
        steps.splice(at, 1);
        break;
      }
      case 'add_step': {
        if (indexOf(edit.step.id) >= 0) {
          return {
            ok: false,
            message: `${where}: a step "${edit.step.id}" already exists in plan ${plan.id}`,
          };
        }
        let at = steps.length;
        if (edit.after !== undefined) {
          const prev = indexOf(edit.after);
          if (prev < 0) return { ok: false, message: `${where}: "after" names no step: "${edit.after}"` };
          at = prev + 1;
        }
        steps.splice(at, 0, normalizeStep(edit.step, normalizeOptions(plan, edit.step.id)));
        break;
      }
      case 'move_step': {
        const from = indexOf(edit.step_id);
        const step = steps[from];
        if (!step) return noStep(edit.step_id);
        if (edit.to_index >= steps.length) {
          const range = `0-${steps.length - 1}`;
          return {
            ok: false,
            message: `${where}: to_index ${edit.to_index} is outside ${range} for "${edit.step_id}"`,
          };
        }
        steps.splice(from, 1);
        steps.splice(edit.to_index, 0, step);
        break;
      }
      case 'set_dependencies': {
        const at = indexOf(edit.step_id);
        const step = steps[at];
        if (!step) return noStep(edit.step_id);
        steps[at] = { ...step, dependencies: [...edit.dependencies] };
        break;
      }
    }
  }
  return { ok: true, plan: { ...plan, steps } };
}

/** Required fields fall back to their defaults on `null`; optional ones are removed. */
const CLEARED_TO: Partial<Record<keyof PlanStep, () => unknown>> = {
  parameters: () => ({}),
  dependencies: () => [],
};

function updateStep(step: PlanStep, changes: StepChanges, opts: NormalizeOptions): PlanStep {
  const out: Record<string, unknown> = { ...step };
  for (const [key, value] of Object.entries(changes) as [keyof StepChanges, unknown][]) {
    if (value === undefined) continue;
    if (value === null) {
      const reset = CLEARED_TO[key];
      if (reset) out[key] = reset();
      else delete out[key];
    } else if (key === 'subplan' && changes.subplan) {
      // The model's normaliser, so an edited sub-plan gets the same defaults as a submitted one.
      out.subplan = normalizePlan(changes.subplan, { ...opts, defaultStrategy: undefined });
    } else if (key === 'dependencies' && changes.dependencies) {
      out.dependencies = [...changes.dependencies];
    } else {
      out[key] = value;
    }
  }
  return out as PlanStep;
}

/**
 * Ids and time for sub-plans that arrive without them. Derived from the parent rather than random,
 * so the same edits on the same plan always give the same result (replay folds them again).
 */
function normalizeOptions(plan: Plan, stepId: string): NormalizeOptions {
  let n = 0;
  const created = Number.isNaN(Date.parse(plan.created_at)) ? new Date(0) : new Date(plan.created_at);
  const next = () => `${plan.id}.${stepId}.${++n}`;
  return {
    clock: { now: () => created },
    ids: { id: (prefix) => `${prefix}_${next()}`, uuid: next },
  };
}

/**
 * What the parameter-checking tests share: a team tool with a given input schema, and validation
 * against a registry with a fixed clock and counting ids.
 */
import type { z } from 'zod';
import { ToolRegistry, defineTool } from '../../src/executor/registry';
import { validatePlan } from '../../src/plan/validate';
import type { ValidateOptions } from '../../src/plan/validate';

/** A tool taking `input`, doing nothing. */
export function tool(name: string, input: z.ZodType) {
  return defineTool({
    name,
    description: name,
    version: '1',
    input,
    idempotent: true,
    deterministic: true,
    run: () => Promise.resolve(null),
  });
}

let n = 0;
/** Validates `raw` against `registry`. */
export function validate(registry: ToolRegistry, raw: unknown) {
  const opts: ValidateOptions = {
    tools: registry,
    clock: { now: () => new Date('2025-01-01T00:00:00Z') },
    ids: { id: (prefix) => `${prefix}_${++n}`, uuid: () => `uuid-${++n}` },
  };
  return validatePlan(raw, opts);
}

/** A one-step plan running `team.tool` with `parameters`, in a registry holding only that tool. */
export function oneStep(input: z.ZodType, parameters: Record<string, unknown>) {
  return validate(new ToolRegistry([tool('team.tool', input)]), {
    steps: [{ id: 's', action: 'team.tool', parameters }],
  });
}

/** The run configuration as requests give it (SPEC §4): seed aliases accepted, unknown keys refused. */
import { z } from '@hono/zod-openapi';
import { RunConfigSchema, applyConfigAliases } from '../../plan/config';
import { strictObject } from './strict-object';

/** `config` of `POST /v1/runs`: aliases (`max_subtasks`, …) rewritten first, then the strict schema. */
export const RunConfigInputSchema = z.preprocess(
  (v) => applyConfigAliases(v ?? {}),
  strictObject(RunConfigSchema.shape),
);

/**
 * `config` of `POST /v1/plans/validate`: as a run's, except that `require_dependencies` has no
 * default — submitted plans may leave dependencies to their references, so the check is on only
 * when the caller asks for it.
 */
export const ValidationConfigSchema = z
  .preprocess(
    (v) => applyConfigAliases(v ?? {}),
    strictObject({
      ...RunConfigSchema.shape,
      require_dependencies: z
        .boolean()
        .optional()
        .openapi({ description: 'Every step must list its dependencies (off unless set)' }),
    }),
  )
  .openapi('ValidationConfig', {
    description: 'Run configuration (SPEC §4); seed aliases such as max_subtasks are accepted',
  });

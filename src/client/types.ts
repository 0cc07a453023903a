/** The shapes `edgeplan/client` sends and receives (SPEC §6); the API's full schema is /openapi.json. */
import type { RunConfigInput } from '../plan/config';
import type { RunStatus } from '../plan/model';

export type { RunEvent } from '../engine/events';

/** The body of `POST /v1/runs`: a plan, a goal, or an imported source. */
export type CreateRunRequest = {
  plan?: unknown;
  goal?: string;
  format?: 'tool-calls' | 'llmcompiler' | 'tea-yaml';
  source?: string;
  config?: RunConfigInput;
  input?: unknown;
};

/** `201` from `POST /v1/runs`. */
export type CreatedRun = {
  run_id: string;
  status: RunStatus;
  links: { self: string; events: string; ws: string };
};

/** `GET /v1/runs/:id` (the fields most callers read; the rest pass through). */
export type Run = {
  run_id: string;
  status: RunStatus;
  goal: string;
  plan: unknown;
  step_statuses: Record<string, string>;
  step_results: Record<string, unknown>;
  final_output?: unknown;
  error?: { code: string; message: string } | null;
  [field: string]: unknown;
};

/** Every error the API answers: `{error: {code, message, details?}}`. */
export type ApiErrorBody = { error: { code: string; message: string; details?: unknown } };

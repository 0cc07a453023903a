/** What callers of a run's object send it to start a run, and the steps it hands back to run at once. */
import type { MachineInput } from '../engine/machine';
import type { BeginStep } from './begin-attempt';
import type { ParentRef } from './child-runs';
import type { StepMessage } from './messages';
import type { RunStatus } from '../plan/model';

/** A new run: the machine's `create` input, plus where the API is served (for the links the run
 * hands out) and, for a child run, the parent step to report to when it ends. */
export type CreateRunRequest = Omit<Extract<MachineInput, { type: 'create' }>, 'type'> & {
  origin?: string;
  parent?: ParentRef;
  /**
   * The plan (validated) as JSON text, instead of `plan`: a large plan crosses the call as one string
   * far faster than as a structured clone of its objects (a 100,000-step plan: ~1 s less).
   */
  plan_json?: string;
  /**
   * The request carried an `Idempotency-Key` (the run's id is derived from it): its body's
   * fingerprint. A second create with the key finds the run and is answered with it when the
   * fingerprints match, refused (`idempotency_key_reused`) when they do not.
   */
  fingerprint?: string;
};

/** A step handed to a reporting consumer to run now: already begun (ToolInvoked recorded). */
export type Continuation = { step_id: string; attempt: number } & Extract<BeginStep, { proceed: true }>;

/**
 * A run object's answer to a create. `format`: the storage format it stored the run in
 * (storage-format.ts) — the confirmation that it honours what the run's config needs; releases
 * before 2026-11-29's (ae03508 and earlier) do not send it (confirmed-create.ts). `replayed`: an `Idempotency-Key`'s run,
 * found again.
 */
export type CreatedRun = {
  run_id: string;
  status: RunStatus;
  outbox: StepMessage[];
  replayed?: true;
  format?: number;
};

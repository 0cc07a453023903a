import type { ErrorCode } from '../error-codes';
import type { RunStatus } from '../plan/model';

/** Errors as data: the only shape that crosses RPC intact (STYLE §7). */
export type RpcResult<T> =
  { ok: true; value: T } | { ok: false; error: { code: ErrorCode; message: string; details?: unknown } };

/** What a control of a run (cancel, retry, approve, input, replan) answers: the run's status after it. */
export type StatusResult = RpcResult<{ status: RunStatus }>;

import type { ErrorCode } from '../error-codes';

/** Errors as data: the only shape that crosses RPC intact (STYLE §7). */
export type RpcResult<T> =
  { ok: true; value: T } | { ok: false; error: { code: ErrorCode; message: string; details?: unknown } };

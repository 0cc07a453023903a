/** Errors as data: the only shape that crosses RPC intact (STYLE §7). */
export type RpcResult<T> =
  { ok: true; value: T } | { ok: false; error: { code: string; message: string; details?: unknown } };

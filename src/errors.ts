import type { ErrorCode } from './error-codes';

/**
 * One error class for everything a caller can get wrong or a run can hit, with a stable `code` from
 * the one table of codes (src/error-codes.ts), which also gives each API code its HTTP status.
 */
export class EdgeplanError extends Error {
  override readonly name = 'EdgeplanError';
  readonly code: ErrorCode;
  readonly details?: unknown;
  readonly retryable: boolean;

  constructor(code: ErrorCode, message: string, opts: { details?: unknown; retryable?: boolean } = {}) {
    super(message);
    this.code = code;
    this.details = opts.details;
    this.retryable = opts.retryable ?? false;
  }

  toJSON(): { code: string; message: string; details?: unknown } {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}

/**
 * Thrown by tools. `retryable: false` skips the remaining retries and goes straight to the fallback.
 * `retryAfterMs` is how long the service called asked to be left alone (a 429's or 503's
 * `Retry-After`): the step's retry waits at least that long. A team's tools may use codes of their
 * own; edgeplan's are rows of src/error-codes.ts.
 */
export class ToolError extends Error {
  override readonly name = 'ToolError';
  readonly code: string;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;

  constructor(
    code: ErrorCode | (string & {}),
    message: string,
    opts: { retryable?: boolean; retryAfterMs?: number | undefined } = {},
  ) {
    super(message);
    this.code = code;
    this.retryable = opts.retryable ?? true;
    const after = opts.retryAfterMs;
    this.retryAfterMs =
      after !== undefined && Number.isFinite(after) && after >= 0 ? Math.round(after) : undefined;
  }
}

/**
 * Errors as data, the only shape that crosses RPC, queues and the event log intact. `details` is
 * carried where an error promises more (a failed planning's `planning_trace`); `retry_after_ms` where
 * a tool's service said when to call again.
 */
export type ErrorInfo = {
  code: string;
  message: string;
  retryable: boolean;
  details?: unknown;
  retry_after_ms?: number;
};

export function toErrorInfo(err: unknown): ErrorInfo {
  if (err instanceof ToolError) {
    const info: ErrorInfo = { code: err.code, message: err.message, retryable: err.retryable };
    if (err.retryAfterMs !== undefined) info.retry_after_ms = err.retryAfterMs;
    return info;
  }
  if (err instanceof EdgeplanError) {
    return { code: err.code, message: err.message, retryable: err.retryable };
  }
  if (err instanceof Error) {
    const code = err.name === 'AbortError' || err.name === 'TimeoutError' ? 'timeout' : 'tool_error';
    return { code, message: err.message, retryable: true };
  }
  return { code: 'tool_error', message: thrownText(err), retryable: true };
}

/** A thrown value that is not an Error, as text: a string as it is, anything else as JSON when it can be. */
function thrownText(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    const json = JSON.stringify(value);
    if (json !== undefined && json !== '{}') return `threw ${json}`;
  } catch {
    // a cycle, a BigInt: as String() says it
  }
  return `threw ${String(value)}`;
}

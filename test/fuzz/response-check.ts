/**
 * What the fuzz asks of every answer: below 500; from 400 up, JSON — the error envelope with a code
 * from the one table (src/error-codes.ts) sent with that code's status, or on `/mcp` a JSON-RPC error
 * — except where the document says the answer is HTML (the approval link's page); and the answer
 * arrives in full within a deadline (a hang is a failure, not a stuck test).
 */
import { ERROR_CODES, isErrorCode } from '../../src/error-codes';
import type { FuzzRequest } from './api-requests';

/** How long one request may take before it counts as a hang (the machine is slow, not the app). */
export const HANG_MS = 20_000;

/** workerd's side of an accepted WebSocket (a Response's `webSocket`). */
type ServerSocket = { accept(): void; close(code?: number, reason?: string): void };

export type Answer = { status: number; contentType: string; text: string; webSocket?: ServerSocket | null };

/** `send`'s answer, its body read in full, or `{ hang }` past {@link HANG_MS}. */
export async function answerOf(
  send: (signal: AbortSignal) => Promise<Response>,
): Promise<Answer | { hang: true }> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<{ hang: true }>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve({ hang: true });
    }, HANG_MS);
  });
  const read = (async (): Promise<Answer> => {
    const res = await send(controller.signal);
    const webSocket = (res as Response & { webSocket?: ServerSocket | null }).webSocket;
    if (webSocket) {
      webSocket.accept();
      webSocket.close(1000, 'fuzz');
      return { status: res.status, contentType: '', text: '', webSocket };
    }
    return { status: res.status, contentType: res.headers.get('Content-Type') ?? '', text: await res.text() };
  })();
  try {
    return await Promise.race([read, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Statuses workerd answers before the app is asked (a URI past 64 KiB): known, in docs/errors.md. */
export const RUNTIME_STATUSES = new Set([414]);

/** What is wrong with `answer` to `req`, or null. */
export function problemWith(req: FuzzRequest, answer: Answer | { hang: true }): string | null {
  if ('hang' in answer) return `no answer within ${HANG_MS} ms`;
  const { status, contentType, text } = answer;
  if (status >= 500) return `${status} ${text.slice(0, 300)}`;
  if (answer.webSocket) return status === 101 ? null : `${status} with a WebSocket`;
  if (status < 400) return null;
  if (RUNTIME_STATUSES.has(status)) return null;
  // A HEAD answer has no body to check.
  if (req.method.toUpperCase() === 'HEAD') return null;
  // The approval link's page is HTML, its refusals too (403 wrong link, 410 used or expired).
  const page =
    req.method.toUpperCase() === 'GET' && /^\/v1\/runs\/[^/?]+\/approval\/*(\?|$)/.test(req.target);
  if (page && /^text\/html/.test(contentType))
    return [403, 410].includes(status) ? null : `${status} as HTML (the page refuses with 403 or 410)`;
  if (!/^application\/json/i.test(contentType))
    return `${status} as ${contentType || 'no Content-Type'}: ${text.slice(0, 200)}`;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `${status} with a body that is not JSON: ${text.slice(0, 200)}`;
  }
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  if (req.target.startsWith('/mcp') && typeof error?.code === 'number') {
    const rpc = body as { jsonrpc?: unknown };
    return rpc.jsonrpc === '2.0' && typeof error.message === 'string' && error.message !== ''
      ? null
      : `${status} with a malformed JSON-RPC error: ${text.slice(0, 300)}`;
  }
  if (typeof error?.code !== 'string' || typeof error.message !== 'string' || error.message.trim() === '')
    return `${status} without the error envelope: ${text.slice(0, 300)}`;
  if (!isErrorCode(error.code)) return `${status} with code "${error.code}", not in src/error-codes.ts`;
  const expected = ERROR_CODES[error.code].status;
  return expected === status ? null : `${status} with code "${error.code}", whose status is ${expected}`;
}

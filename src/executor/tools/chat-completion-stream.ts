/**
 * A streamed Chat Completion (`stream: true`) read as server-sent events: each event's JSON is one
 * chunk, `data: [DONE]` ends the stream, and an error the server sends inside the 2xx stream — an
 * `event: error`, or a chunk with an `error` field — is raised as an {@link LlmBodyError} (`inStream`),
 * classified by what it says as a 2xx error body is. A body that just ends (some servers send no
 * `[DONE]`) ends the stream too.
 */
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { statusLike } from './llm-error-text';
import { LlmBodyError, LlmClientError, LlmUserAbortError } from './llm-errors';
import { clipText } from '../../text-cut';

/**
 * The chunks of an SSE response, as parsed JSON (`unknown`: completion-shape.ts reads them). Leaving
 * the loop early, the stream's end or a failure cancels the body and calls `end` (which aborts the
 * request); the caller's `signal` aborting fails it with {@link LlmUserAbortError}.
 * @example for await (const chunk of sseChunks(res, () => controller.abort(), signal)) text += readChunk(chunk).text;
 */
export async function* sseChunks(
  res: Response,
  end: () => void,
  signal: AbortSignal | undefined,
): AsyncGenerator<unknown, void, undefined> {
  if (!res.body) return;
  const reader = res.body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  // The caller's abort ends the read itself, not only the request: a fetch whose body goes on
  // regardless (a test double, a polyfill) held a cancelled planning until the stream's own timeout.
  // Cancelling the reader settles a read it has pending ({done}), which is then told as the abort.
  const onAbort = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      if (signal?.aborted) throw new LlmUserAbortError();
      const next = await reader.read().catch((err: unknown) => {
        // The caller's abort reaches the body as the runtime's AbortError: say it was the caller.
        throw signal?.aborted ? new LlmUserAbortError() : err;
      });
      if (next.done && signal?.aborted) throw new LlmUserAbortError();
      if (next.done) return;
      const sse = next.value;
      if (sse.data === '[DONE]') return;
      const data = parseEvent(sse.data);
      const errorField = (data as { error?: unknown } | null)?.error;
      const error = sse.event === 'error' ? (errorField ?? data) : errorField;
      if (sse.event === 'error' || errorField)
        throw new LlmBodyError(res.status, error, res.headers, statusLike(error), true);
      yield data;
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    // Done, failed or left early: nothing more is read, so the connection need not stay open.
    end();
    await reader.cancel().catch(() => undefined);
  }
}

function parseEvent(data: string): unknown {
  try {
    return JSON.parse(data) as unknown;
  } catch {
    throw new LlmClientError(
      `Error reading response: malformed server-sent event JSON: ${clipText(data, 200)}`,
    );
  }
}

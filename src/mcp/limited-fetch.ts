/**
 * The fetch an MCP session uses, with every answer's size bounded: a server cannot make edgeplan read
 * more than {@link MAX_MCP_RESPONSE_BYTES}, declared or streamed. It also keeps what a busy server
 * asked (`Retry-After` on a 429 or 503), which the SDK's error for that answer does not carry.
 */
import { retryAfterMs } from '../client/retry-after';
import { ToolError } from '../errors';
import { OUTPUT_LIMIT_CEILING } from '../plan/config';
import type { McpServerConfig } from './config';

/**
 * The most of an answer that is read: a step's output may be up to 16 MiB (`max_output_bytes`' ceiling)
 * and a typed result carries it twice (`structuredContent` and its text). Past it the rest is never
 * read, so a server cannot exhaust the isolate's memory.
 */
export const MAX_MCP_RESPONSE_BYTES = 2 * OUTPUT_LIMIT_CEILING;

/**
 * `base`, with every response body cut off past {@link MAX_MCP_RESPONSE_BYTES}; `overflow` rejects
 * with the `mcp_response_too_large` error when that happens. `askedWaitMs()` is the wait the last
 * 429 or 503 answer asked for in its `Retry-After` (undefined: none asked, or the header is no wait).
 */
export function limitedFetch(
  server: McpServerConfig,
  base: typeof fetch,
): { fetch: typeof fetch; overflow: Promise<never>; askedWaitMs: () => number | undefined } {
  let askedWait: number | undefined;
  let fail!: (err: ToolError) => void;
  const overflow = new Promise<never>((_, reject) => (fail = reject));
  overflow.catch(() => {}); // raced only while a session is open
  const tooLarge = (detail: string) => {
    const err = new ToolError(
      'mcp_response_too_large',
      `MCP server "${server.name}" answered more than ${MAX_MCP_RESPONSE_BYTES} bytes (${detail}); the rest was not read`,
      { retryable: false },
    );
    fail(err);
    return err;
  };
  const limited = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const res = await base(input, init);
    if (res.status === 429 || res.status === 503) askedWait = retryAfterMs(res.headers.get('retry-after'));
    const declared = Number(res.headers.get('content-length'));
    if (declared > MAX_MCP_RESPONSE_BYTES) {
      void res.body?.cancel().catch(() => {});
      throw tooLarge(`${declared} bytes declared`);
    }
    if (!res.body) return res;
    let seen = 0;
    const counted = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > MAX_MCP_RESPONSE_BYTES) controller.error(tooLarge(`${seen} bytes so far`));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  return { fetch: limited, overflow, askedWaitMs: () => askedWait };
}

/**
 * A response body that fails when nothing arrives for `ms`. The LLM client's `timeout` ends when the
 * headers arrive; a server that then stops sending (a stalled stream, a body cut off mid-way) would
 * hold a planning call — and its run — until the run object gave the work up (three times
 * `planning_timeout_s`). Each chunk restarts the clock, so a long stream that keeps sending is not cut.
 */
import { ToolError } from '../../errors';

/**
 * `fetchImpl` with every response body guarded by an idle timeout of `ms`.
 * @example const guarded = idleBodyFetch(fetch, 60_000, 'LLM at localhost:11434 (model llama3)');
 */
export function idleBodyFetch(fetchImpl: typeof fetch, ms: number, target: string): typeof fetch {
  return async (input, init) => {
    const res = await fetchImpl(input, init);
    if (!res.body) return res;
    return new Response(res.body.pipeThrough(idleGuard(ms, target)), {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  };
}

function idleGuard(ms: number, target: string): TransformStream<Uint8Array, Uint8Array> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = (c: TransformStreamDefaultController<Uint8Array>) => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const seconds = Number((ms / 1000).toFixed(3));
      // Already closed or cancelled by the reader: nothing to fail.
      try {
        c.error(new ToolError('timeout', `${target} sent nothing for ${seconds} s after its headers`));
      } catch {
        /* the stream ended meanwhile */
      }
    }, ms);
  };
  return new TransformStream({
    start: arm,
    transform(chunk, c) {
      arm(c);
      c.enqueue(chunk);
    },
    flush: () => clearTimeout(timer),
    cancel: () => clearTimeout(timer),
  });
}

/**
 * A scripted OpenAI-compatible endpoint, so the examples plan offline: every Chat Completions
 * request is answered with the next scripted reply. Pass `fetch` in the agent's `llm` options.
 */

/** A fetch that answers `/chat/completions` with `replies` in order (the last one repeats). */
export function scriptedLlm(replies: readonly unknown[]): { fetch: typeof fetch; calls: () => number } {
  let calls = 0;
  const fetchImpl = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const body: { model?: string } = await request.json();
    const reply = replies[Math.min(calls, replies.length - 1)];
    calls += 1;
    return Response.json({
      id: `chatcmpl-example-${calls}`,
      object: 'chat.completion',
      created: 1_767_225_600,
      model: body.model ?? 'scripted',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: typeof reply === 'string' ? reply : JSON.stringify(reply) },
          finish_reason: 'stop',
          logprobs: null,
        },
      ],
      usage: { prompt_tokens: 420, completion_tokens: 180, total_tokens: 600 },
    });
  };
  return { fetch: fetchImpl, calls: () => calls };
}

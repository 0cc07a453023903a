import { describe, expect, it } from 'vitest';
import type { ToolError } from '../../src/errors';
import { LlmApiError } from '../../src/executor/tools/llm-errors';
import { toLlmError } from '../../src/executor/tools/openai-client';

const where = { model: 'm', baseURL: 'http://127.0.0.1:11434/v1' };

/** What the client makes of an error response: its body parsed as JSON when it is JSON, else quoted as text. */
function clientError(status: number, body: unknown): ToolError {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return toLlmError(LlmApiError.fromResponse(status, text, new Headers()), where) as ToolError;
}

describe("an LLM server's error, in its own words", () => {
  it("quotes Cloudflare's errors array (Workers AI, AI Gateway) as messages with their codes, not as JSON", () => {
    const err = clientError(403, {
      errors: [{ message: 'Authentication error', code: 10000 }],
      success: false,
      result: null,
      messages: [],
    });
    expect(err.code).toBe('llm_auth_failed');
    expect(err.message).toBe(
      'LLM at http://127.0.0.1:11434/v1 (model m) answered 403 Authentication error (code 10000) — check OPENAI_API_KEY',
    );
  });

  it("quotes Ollama's string error and says which model name to check when the model is not found", () => {
    const err = clientError(404, { error: 'model "llama9" not found, try pulling it first' });
    expect(err.code).toBe('llm_bad_request');
    expect(err.message).toContain(
      'answered 404 model "llama9" not found, try pulling it first — check the model name',
    );
    expect(err.message).toContain('PLANNER_MODEL');
    expect(err.message).not.toContain('OPENAI_BASE_URL');
  });

  it('names the base URL as well as the model when a 404 does not say which', () => {
    const err = clientError(404, '404 page not found');
    expect(err.message).toContain('answered 404 404 page not found');
    expect(err.message).toContain('check the model name');
    expect(err.message).toContain("OPENAI_BASE_URL is the API's base URL");
  });

  it("shows a proxy's HTML error page as its title, not its markup", () => {
    const html =
      '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>';
    const err = clientError(502, html);
    expect(err.code).toBe('llm_server_error');
    expect(err.retryable).toBe(true);
    expect(err.message).toBe(
      'LLM at http://127.0.0.1:11434/v1 (model m) answered 502 502 Bad Gateway (an HTML page)',
    );
  });

  it('says an HTML page in answer to a client error points at the base URL', () => {
    const err = clientError(
      400,
      '<!DOCTYPE html><html><head><title>Sign in</title></head><body>…</body></html>',
    );
    expect(err.message).toContain('answered 400 Sign in (an HTML page) — the answer is an HTML page');
    expect(err.message).toContain('OPENAI_BASE_URL');
  });

  it('keeps an OpenAI-shaped error as it was, and caps a long one', () => {
    expect(clientError(429, { error: { message: 'Rate limit reached', type: 'requests' } }).message).toBe(
      'LLM at http://127.0.0.1:11434/v1 (model m) answered 429 Rate limit reached',
    );
    const long = clientError(500, { error: 'x'.repeat(5_000) }).message;
    expect(long.length).toBeLessThan(400);
    expect(long.endsWith('…')).toBe(true);
  });
});

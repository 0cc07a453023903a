import { describe, expect, it } from 'vitest';
import { ToolError } from '../../src/errors';
import {
  createOpenAIClient,
  readLlmConfig,
  shownUrl,
  toLlmError,
} from '../../src/executor/tools/openai-client';
import { LlmApiError, LlmConnectionError } from '../../src/executor/tools/llm-errors';

describe('LLM configuration', () => {
  it('is absent when neither OPENAI_API_KEY nor OPENAI_BASE_URL is set', () => {
    expect(readLlmConfig({})).toBeNull();
    expect(readLlmConfig({ OPENAI_API_KEY: ' ', OPENAI_BASE_URL: '', PLANNER_MODEL: 'x' })).toBeNull();
  });

  it('defaults the model to PLANNER_MODEL, then gpt-4o-mini', () => {
    expect(readLlmConfig({ OPENAI_API_KEY: 'k' })).toEqual({
      apiKey: 'k',
      baseURL: undefined,
      model: 'gpt-4o-mini',
    });
    expect(readLlmConfig({ OPENAI_BASE_URL: 'http://ollama:11434/v1', PLANNER_MODEL: 'llama3' })).toEqual({
      apiKey: undefined,
      baseURL: 'http://ollama:11434/v1',
      model: 'llama3',
    });
  });

  it('builds a client for a keyless compatible endpoint, and refuses to build one with nothing configured', () => {
    expect(createOpenAIClient({ OPENAI_BASE_URL: 'http://ollama:11434/v1' }).baseURL).toBe(
      'http://ollama:11434/v1',
    );
    expect(() => createOpenAIClient({})).toThrow(ToolError);
  });
});

describe('LLM error mapping', () => {
  const where = { model: 'm', baseURL: 'https://llm.test/v1' };
  const apiError = (status: number) =>
    LlmApiError.fromResponse(status, JSON.stringify({ message: 'x' }), new Headers());

  it('makes rate limits, server errors and connection failures retryable', () => {
    for (const err of [apiError(429), apiError(500), apiError(502), new LlmConnectionError('down')]) {
      expect((toLlmError(err, where) as ToolError).retryable).toBe(true);
    }
    expect((toLlmError(apiError(429), where) as ToolError).code).toBe('llm_rate_limited');
  });

  it('makes other client errors non-retryable', () => {
    for (const status of [400, 401, 403, 404, 422]) {
      expect((toLlmError(apiError(status), where) as ToolError).retryable, String(status)).toBe(false);
    }
  });

  it('names the endpoint without the credentials a base URL may carry (user, password, query)', () => {
    const down = new LlmConnectionError('down');
    const at = (baseURL: string) => (toLlmError(down, { model: 'm', baseURL }) as ToolError).message;
    expect(at('https://alice:s3cret-pw@gw.example/v1/openai?key=k3y-123#x')).toBe(
      'Could not reach the LLM at https://gw.example/v1/openai (model m): down',
    );
    expect(at('http://127.0.0.1:11434/v1')).toContain('at http://127.0.0.1:11434/v1 (model m)');
    expect(at('http://127.0.0.1:11434/')).toContain('at http://127.0.0.1:11434 (model m)');
    expect(at('not a url s3cret')).toContain('at OPENAI_BASE_URL (not an absolute URL) (model m)');
    expect(shownUrl('https://u:p@gw.example/v1?key=k')).toBe('https://gw.example/v1');
  });

  it('quotes the server without the secrets it echoes (a proxy quoting the key it refused)', () => {
    const key = 'gw-0123456789abcdef';
    const said = `Invalid key ${key}`;
    const err = LlmApiError.fromResponse(401, JSON.stringify({ message: said }), new Headers());
    const mapped = toLlmError(err, { ...where, secrets: [key] }) as ToolError;
    expect(mapped.code).toBe('llm_auth_failed');
    expect(mapped.message).toContain('Invalid key [REDACTED]');
    expect(mapped.message).not.toContain(key);
  });

  it('passes errors that are not from the client through unchanged', () => {
    const err = new Error('other');
    expect(toLlmError(err, where)).toBe(err);
  });
});

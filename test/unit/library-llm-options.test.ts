/**
 * The `llm` options a team hands the library are checked where they enter — `new Agent`,
 * `pipelineProvider`, a `PlanningPattern` run with a plain agent — and refused with `invalid_options`
 * naming the setting, instead of being taken silently (a negative `retries` meaning none, a string
 * `timeoutMs`, a misspelt `timeout_ms` dropped).
 */
import { describe, expect, it } from 'vitest';
import {
  Agent,
  EdgeplanError,
  PlanningPattern,
  pipelineProvider,
  randomIds,
  systemClock,
  ToolRegistry,
} from '../../src/index';
import type { LlmOptions } from '../../src/index';
import { echo } from './library-helpers';

const tools = new ToolRegistry([echo]);

/** The error `f` throws (synchronously or not), or null. */
async function thrown(f: () => unknown): Promise<unknown> {
  try {
    await f();
    return null;
  } catch (err) {
    return err;
  }
}

const bad: [string, unknown, string][] = [
  ['a negative retries', { retries: -1 }, 'Invalid llm options: retries: must be at least 0'],
  ['a fractional retries', { retries: 1.5 }, 'Invalid llm options: retries: must be a whole number'],
  ['a string timeoutMs', { timeoutMs: '5000' }, 'Invalid llm options: timeoutMs: must be a number'],
  ['a NaN timeoutMs', { timeoutMs: NaN }, 'Invalid llm options: timeoutMs: must be a number'],
  ['an Infinity timeoutMs', { timeoutMs: Infinity }, 'Invalid llm options: timeoutMs:'],
  ['a zero timeoutMs', { timeoutMs: 0 }, 'Invalid llm options: timeoutMs:'],
  ['a snake_case key', { timeout_ms: 5000 }, 'Unknown key "timeout_ms" (did you mean "timeoutMs"?)'],
  ['baseUrl for baseURL', { baseUrl: 'http://x' }, 'did you mean "baseURL"?'],
  ['a baseURL with no scheme', { baseURL: 'localhost:11434/v1' }, 'Invalid llm options: baseURL:'],
  ['a NaN temperature', { temperature: NaN }, 'Invalid llm options: temperature:'],
  ['an empty model', { model: '' }, 'Invalid llm options: model:'],
  ['a fetch that is not a function', { fetch: 'http://x' }, 'fetch: must be a function'],
  ['options that are not an object', 'gpt-4o', 'Invalid llm options:'],
];

describe('llm options are checked where they enter the library', () => {
  it.each(bad)('new Agent refuses %s with invalid_options naming it', async (_, llm, words) => {
    const err = await thrown(
      () => new Agent({ pattern: new PlanningPattern(), tools, llm: llm as LlmOptions }),
    );
    expect(err).toBeInstanceOf(EdgeplanError);
    expect((err as EdgeplanError).code).toBe('invalid_options');
    expect((err as EdgeplanError).message).toContain(words);
  });

  it.each(bad)('pipelineProvider refuses %s', async (_, llm, words) => {
    const err = await thrown(() =>
      pipelineProvider({ tools, llm: llm as LlmOptions, clock: systemClock, ids: randomIds }),
    );
    expect((err as EdgeplanError).code).toBe('invalid_options');
    expect((err as EdgeplanError).message).toContain(words);
  });

  it('a plain agent’s bad llm is refused by generatePlan and execute before anything is asked of it', async () => {
    let calls = 0;
    const llm = { retries: -1, fetch: () => (calls++, Promise.reject(new Error('not to be called'))) };
    const pattern = new PlanningPattern();
    const generated = await thrown(() => pattern.generatePlan({ tools, llm }, 'say hi'));
    // With a planner of its own the agent's llm still serves `llm.call` steps: checked all the same.
    const planner = { plan: () => ({ goal: 'g', steps: [] }) };
    const executed = await thrown(() => pattern.execute({ tools, llm, planner } as never, 'say hi'));
    expect((generated as EdgeplanError).code).toBe('invalid_options');
    expect((executed as EdgeplanError).code).toBe('invalid_options');
    expect((executed as EdgeplanError).message).toBe('Invalid llm options: retries: must be at least 0');
    expect(calls).toBe(0);
  });

  it('takes every documented option, keeping the caller’s fetch', () => {
    const llm: LlmOptions = {
      apiKey: 'sk-test',
      baseURL: 'http://localhost:11434/v1',
      model: 'llama3.1',
      fallbackModels: ['qwen2.5'],
      fetch: globalThis.fetch,
      temperature: 0,
      retries: 0,
      timeoutMs: 500,
    };
    const agent = new Agent({ pattern: new PlanningPattern(), tools, llm });
    expect(agent.llm).toBe(llm);
    expect(agent.llm?.fetch).toBe(globalThis.fetch);
  });
});

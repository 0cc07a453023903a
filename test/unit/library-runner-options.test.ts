/**
 * `new LocalRunner(options)` checks its options where they enter: a misspelt key or hook, a hook or
 * `fetch` that is not a function, a clock without `now()` is refused with `invalid_options` naming
 * it — not dropped silently (a hook never called) or met halfway through a run.
 */
import { describe, expect, it } from 'vitest';
import { EdgeplanError, LocalRunner, ToolRegistry } from '../../src/index';
import type { LocalRunnerOptions } from '../../src/index';
import { echo } from './library-helpers';

const tools = new ToolRegistry([echo]);

function refusal(options: unknown): EdgeplanError | null {
  try {
    new LocalRunner(options as LocalRunnerOptions);
    return null;
  } catch (err) {
    return err as EdgeplanError;
  }
}

describe('LocalRunner options are checked at construction', () => {
  it.each([
    ['a misspelt option', { tools, hook: {} }, 'Unknown key "hook" (did you mean "hooks"?)'],
    ['a misspelt hook', { tools, hooks: { stepStart: () => {} } }, 'did you mean "stepStarted"?'],
    [
      'a hook that is not a function',
      { tools, hooks: { approve: true } },
      'hooks.approve: must be a function',
    ],
    ['a fetch that is not a function', { tools, fetch: 'https://x' }, 'fetch: must be a function'],
    ['a clock without now()', { tools, clock: Date }, 'clock: must be an object with now()'],
    [
      'timers without clear()',
      { tools, timers: { set: setTimeout } },
      'timers: must be an object with set() and clear()',
    ],
    ['tools that are neither', { tools: 'echo' }, 'tools: must be a ToolRegistry or an array of tools'],
    ['no tools', {}, 'tools:'],
    ['an env that is not an object', { tools, env: 'prod' }, 'env:'],
  ])('refuses %s with invalid_options naming it', (_, options, words) => {
    const err = refusal(options);
    expect(err).toBeInstanceOf(EdgeplanError);
    expect(err?.code).toBe('invalid_options');
    expect(err?.message).toContain('Invalid LocalRunner options: ');
    expect(err?.message).toContain(words);
  });

  it('takes every documented option', () => {
    const options: LocalRunnerOptions = {
      tools: [echo],
      hooks: { stepStarted: () => {}, error: () => {} },
      env: { A: '1' },
      fetch: globalThis.fetch,
      clock: { now: () => new Date(0) },
      timers: { set: (f, ms) => setTimeout(f, ms), clear: (h) => clearTimeout(h as number) },
      ids: { id: (p) => `${p}_1`, uuid: () => '00000000-0000-4000-8000-000000000000' },
    };
    expect(refusal(options)).toBeNull();
  });
});

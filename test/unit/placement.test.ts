import { describe, expect, it } from 'vitest';
import { placeAttempt, type ToolPlacement } from '../../src/engine/placement';
import { emptyRunState } from '../../src/engine/state';
import { parseRunConfig, type RunConfigInput } from '../../src/plan/config';

const tools: Record<string, ToolPlacement> = { 'demo.sleep': 'object', 'http.request': 'queue' };
const place = (config: RunConfigInput, action: string) =>
  placeAttempt(emptyRunState('run_1', parseRunConfig(config)), action, (a) => tools[a]);

describe('where an attempt is carried out', () => {
  it('keeps every step of a sequential run in its object, whatever the tool or placement', () => {
    for (const placement of ['auto', 'queue', 'object'] as const) {
      expect(place({ execution_mode: 'sequential', placement }, 'http.request')).toBe('inline');
    }
  });

  it('follows the tool in a parallel run by default: placed in the object, or the queue', () => {
    expect(place({ execution_mode: 'parallel' }, 'demo.sleep')).toBe('inline');
    expect(place({ execution_mode: 'parallel' }, 'http.request')).toBe('queue');
    // A tool that says nothing (a team's own, an MCP tool) goes to the queue.
    expect(place({ execution_mode: 'parallel' }, 'team.tool')).toBe('queue');
  });

  it('lets the run override the tools: every step on the queue, or every step in the object', () => {
    expect(place({ execution_mode: 'parallel', placement: 'queue' }, 'demo.sleep')).toBe('queue');
    expect(place({ execution_mode: 'adaptive', placement: 'object' }, 'http.request')).toBe('inline');
  });

  it('refuses an unknown placement in the config', () => {
    expect(() => parseRunConfig({ placement: 'edge' })).toThrow();
  });
});

import { describe, expect, it } from 'vitest';
import { MemoryProvenanceStore } from '../../src/planner/provenance';
import { addAttempt, emptyCounts, orderModels, reliabilityScore } from '../../src/planner/reliability';
import { provenanceStoreConformance } from './planner-provenance-conformance';

provenanceStoreConformance('MemoryProvenanceStore', () => new MemoryProvenanceStore());

describe('model reliability ordering', () => {
  const record = (model: string, ok: number, bad: number, latency = 100) => {
    let c = emptyCounts(model);
    for (let i = 0; i < ok; i++) c = addAttempt(c, 'ok', latency, 't');
    for (let i = 0; i < bad; i++) c = addAttempt(c, 'parse_error', latency, 't');
    return c;
  };

  it('keeps the primary model first whatever its record', () => {
    const stats = new Map([['primary', record('primary', 0, 10)]]);
    expect(orderModels('primary', ['x'], stats)[0]).toBe('primary');
  });

  it('puts a fallback with a better record before a worse one, and an unknown model between them', () => {
    const stats = new Map([
      ['good', record('good', 9, 1)],
      ['bad', record('bad', 1, 9)],
    ]);
    expect(orderModels('p', ['bad', 'unknown', 'good'], stats)).toEqual(['p', 'good', 'unknown', 'bad']);
  });

  it('does not let one lucky attempt outrank a long good record', () => {
    expect(reliabilityScore(record('lucky', 1, 0))).toBeLessThan(reliabilityScore(record('steady', 19, 1)));
  });

  it('breaks ties by lower average latency, then by configured order, and drops duplicates', () => {
    const stats = new Map([
      ['slow', record('slow', 3, 1, 900)],
      ['fast', record('fast', 3, 1, 100)],
    ]);
    expect(orderModels('p', ['slow', 'fast', 'p', 'slow'], stats)).toEqual(['p', 'fast', 'slow']);
    expect(orderModels('p', ['n1', 'n2'], new Map())).toEqual(['p', 'n1', 'n2']);
  });
});

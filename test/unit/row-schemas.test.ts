import { describe, expect, it } from 'vitest';
import { parseMetaRow, parsePlanRow, parseStepRow } from '../../src/durable/row-schemas';
import { newStepRuntime } from '../../src/engine/state';
import { compactRuntime, expandRuntime } from '../../src/durable/persist';

describe('rows read back from SQLite are parsed at that boundary', () => {
  it('reads a step row, defaulting what older rows lack', () => {
    const { key_version: _k, ...legacy } = newStepRuntime();
    expect(parseStepRow('a', legacy)).toEqual({ ...newStepRuntime(), key_version: 0 });
  });

  it('keeps what a compact row stores, the idempotency key version included', () => {
    const rt = { ...newStepRuntime(), status: 'revised' as const, attempt: 2, key_version: 3 };
    expect(parseStepRow('a', expandRuntime(compactRuntime(rt)))).toEqual(rt);
  });

  it('refuses a step row that does not fit, naming the step and the field', () => {
    const bad = { ...newStepRuntime(), status: 'exploded' };
    expect(() => parseStepRow('charge', bad)).toThrow(/step charge[\s\S]*status/);
  });

  it('refuses a run row without its status, and a plan without steps', () => {
    expect(() => parseMetaRow({ run_id: 'run_1' })).toThrow(/run meta/);
    expect(() => parsePlanRow({ id: 'plan_1', version: 1, goal: 'g' })).toThrow(/plan[\s\S]*steps/);
  });
});

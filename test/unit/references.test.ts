import { describe, expect, it } from 'vitest';
import {
  collectReferences,
  internedLocations,
  formatOutputPath,
  getPath,
  normalizeLegacyReferences,
  parseOutputPath,
  parseReferenceExpression,
  resolveValue,
} from '../../src/plan/references';
import type { RefScope } from '../../src/plan/references';

function scope(
  outputs: Record<string, unknown>,
  state: Record<string, unknown> = {},
  input: unknown = {},
): RefScope {
  return {
    stepOutput: (id) => (Object.hasOwn(outputs, id) ? { found: true, value: outputs[id] } : { found: false }),
    state,
    input,
  };
}

describe('reference parsing', () => {
  it('reads a step reference with a path after .output', () => {
    const { refs, errors } = collectReferences({ url: '{{ steps.search.output.items[0].url }}' });
    expect(errors).toEqual([]);
    expect(refs).toHaveLength(1);
    expect(refs[0]).toMatchObject({
      source: 'steps',
      stepId: 'search',
      path: ['items', 0, 'url'],
      text: '{{ steps.search.output.items[0].url }}',
      at: ['url'],
      whole: true,
    });
  });

  it('accepts references without spaces inside the braces', () => {
    const { refs } = collectReferences('{{state.a.b}}');
    expect(refs[0]).toMatchObject({ source: 'state', path: ['a', 'b'], whole: true });
  });

  it('reads state and input references, and the whole input', () => {
    expect(parseReferenceExpression('input.user["first name"]')).toMatchObject({
      ok: true,
      ref: { source: 'input', path: ['user', 'first name'] },
    });
    expect(parseReferenceExpression('input')).toMatchObject({ ok: true, ref: { source: 'input', path: [] } });
  });

  it('treats a dotted numeric segment like an index', () => {
    expect(parseReferenceExpression('state.items.0.name')).toMatchObject({
      ref: { path: ['items', 0, 'name'] },
    });
  });

  it('reads steps.<id> without .output as the whole output', () => {
    expect(parseReferenceExpression('steps.fetch')).toMatchObject({
      ok: true,
      ref: { source: 'steps', stepId: 'fetch', path: [] },
    });
  });

  it('accepts step ids containing dots and dashes', () => {
    expect(parseReferenceExpression('steps.fetch-1.v2.output.body')).toMatchObject({
      ref: { stepId: 'fetch-1.v2', path: ['body'] },
    });
    expect(parseReferenceExpression("steps['a.output'].output.x")).toMatchObject({
      ref: { stepId: 'a.output', path: ['x'] },
    });
  });

  it('marks a reference inside longer text as not whole', () => {
    const { refs } = collectReferences('Summarise {{ steps.a.output }} please');
    expect(refs[0]?.whole).toBe(false);
    const two = collectReferences('{{ state.a }}{{ state.b }}');
    expect(two.refs.map((r) => r.whole)).toEqual([false, false]);
  });

  it('finds references deep inside objects and arrays, with where they sit', () => {
    const { refs } = collectReferences({ a: [{ b: '{{ input.x }}' }], c: 'plain' }, ['parameters']);
    expect(refs.map((r) => r.at)).toEqual([['parameters', 'a', 0, 'b']]);
  });

  it.each([
    ['{{ }}', 'empty'],
    ['{{ foo.bar }}', 'unknown root "foo"'],
    ['{{ state.a', 'never closed'],
    ['{{ state..a }}', 'expected a name'],
    ['{{ state.a[x] }}', 'expected [<index>]'],
    ['{{ steps.a[0] }}', 'expected .output'],
    ['{{ steps }}', 'expected a step id'],
    ['{{ state.a b }}', 'unexpected " "'],
  ])('reports %s as a bad reference', (text, why) => {
    const { refs, errors } = collectReferences({ p: text });
    expect(refs).toEqual([]);
    expect(errors[0]?.message).toContain(why);
    expect(errors[0]?.path).toEqual(['p']);
  });
});

describe('an unclosed reference before another one', () => {
  it('is reported, and the well-formed one after it still counts', () => {
    const { refs, errors } = collectReferences('{{ state.a {{ state.b }}');
    expect(errors[0]?.message).toContain('not closed before the next');
    expect(refs.map((r) => r.path)).toEqual([['b']]);
  });
});

describe('reference resolution', () => {
  it('keeps the referenced type when the string is exactly one reference', () => {
    const r = resolveValue(
      { n: '{{ state.count }}', o: ' {{ steps.a.output }} ' },
      scope({ a: { x: [1] } }, { count: 3 }),
    );
    expect(r).toEqual({ ok: true, value: { n: 3, o: { x: [1] } } });
  });

  it('interpolates embedded references: strings as they are, everything else as JSON', () => {
    const r = resolveValue(
      'name={{ input.name }} n={{ state.n }} obj={{ steps.a.output }} none={{ state.z }}',
      scope({ a: { k: 'v' } }, { n: 2, z: null }, { name: 'Ada' }),
    );
    expect(r).toEqual({ ok: true, value: 'name=Ada n=2 obj={"k":"v"} none=null' });
  });

  it('resolves paths into step outputs, arrays included', () => {
    const r = resolveValue(
      '{{ steps.search.output.items[1].url }}',
      scope({ search: { items: [{}, { url: 'u2' }] } }),
    );
    expect(r).toEqual({ ok: true, value: 'u2' });
  });

  it('reports the first reference to something never written', () => {
    const r = resolveValue({ a: '{{ state.x }}' }, scope({}));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.missing).toMatchObject({ source: 'state', path: ['x'] });
    expect(resolveValue('{{ steps.nope.output }}', scope({})).ok).toBe(false);
    expect(resolveValue('{{ steps.a.output.deep }}', scope({ a: 'text' })).ok).toBe(false);
  });

  it('leaves values without references untouched', () => {
    expect(resolveValue({ a: 1, b: [true, null], c: 'x' }, scope({}))).toEqual({
      ok: true,
      value: { a: 1, b: [true, null], c: 'x' },
    });
  });
});

describe('getPath', () => {
  it('finds own keys and array indexes, and says when a segment is absent', () => {
    const v = { a: [{ b: 0 }], n: null };
    expect(getPath(v, ['a', 0, 'b'])).toEqual({ found: true, value: 0 });
    expect(getPath(v, ['a', '0', 'b'])).toEqual({ found: true, value: 0 });
    expect(getPath(v, ['n'])).toEqual({ found: true, value: null });
    expect(getPath(v, ['a', 1])).toEqual({ found: false });
    expect(getPath(v, ['toString'])).toEqual({ found: false });
    expect(getPath(v, ['n', 'x'])).toEqual({ found: false });
  });
});

describe('legacy reference notation', () => {
  it('rewrites seed-004 dagger references, whole and embedded', () => {
    expect(
      normalizeLegacyReferences({
        profile: '†state.userProfileData',
        text: 'Hello †input.name, see †state.items[0].title.',
        list: ['†input.customerId'],
      }),
    ).toEqual({
      profile: '{{ state.userProfileData }}',
      text: 'Hello {{ input.name }}, see {{ state.items[0].title }}.',
      list: ['{{ input.customerId }}'],
    });
  });

  it('leaves dollar signs alone unless asked to read LLMCompiler references', () => {
    expect(normalizeLegacyReferences('$1')).toBe('$1');
    expect(normalizeLegacyReferences({ q: '$1', r: '${2}' }, { dollar: true })).toEqual({
      q: '{{ steps.1.output }}',
      r: '{{ steps.2.output }}',
    });
    expect(normalizeLegacyReferences('compare $1 with ${2}', { dollar: true })).toBe(
      'compare {{ steps.1.output }} with {{ steps.2.output }}',
    );
    expect(normalizeLegacyReferences('costs $5.00', { dollar: true })).toBe('costs $5.00');
  });

  it('returns the same object when nothing needed rewriting', () => {
    const v = { a: { b: ['x', 1] } };
    expect(normalizeLegacyReferences(v)).toBe(v);
  });
});

describe('output paths', () => {
  it('parses a single state path', () => {
    expect(parseOutputPath('state.a.b')).toEqual({ ok: true, success: ['a', 'b'], failure: null });
  });

  it('parses a success || failure branch in every accepted notation', () => {
    const expected = { ok: true, success: ['receipt'], failure: ['error'] };
    expect(parseOutputPath('state.receipt || state.error')).toEqual(expected);
    expect(parseOutputPath('†state.receipt || †state.error')).toEqual(expected);
    expect(parseOutputPath('{{ state.receipt }}||{{state.error}}')).toEqual(expected);
  });

  it('parses the bare root, in every notation, as the empty path (merge into state)', () => {
    const root = { ok: true, success: [], failure: null };
    expect(parseOutputPath('state')).toEqual(root);
    expect(parseOutputPath('  †state ')).toEqual(root);
    expect(parseOutputPath('{{ state }}')).toEqual(root);
    expect(parseOutputPath('state || state.error')).toEqual({ ok: true, success: [], failure: ['error'] });
  });

  it('rejects paths outside state, empty paths, a root error path and more than two branches', () => {
    expect(parseOutputPath('input.x').ok).toBe(false);
    expect(parseOutputPath('').ok).toBe(false);
    expect(parseOutputPath('   ').ok).toBe(false);
    expect(parseOutputPath('states').ok).toBe(false);
    expect(parseOutputPath('state.').ok).toBe(false);
    expect(parseOutputPath('state[').ok).toBe(false);
    expect(parseOutputPath('{{ }}').ok).toBe(false);
    expect(parseOutputPath('state.a || state.b || state.c').ok).toBe(false);
    expect(parseOutputPath('state.a ||').ok).toBe(false);
    expect(parseOutputPath('|| state.a').ok).toBe(false);
    const rootError = parseOutputPath('state.ok || state');
    expect(rootError).toEqual({
      ok: false,
      message:
        'Bad output_path "state.ok || state": the error goes to a named path ("state.<ok> || state.<error>"); only the success side may be the whole state',
    });
  });

  it('formats an output path canonically', () => {
    expect(formatOutputPath(['a', 0], ['err'])).toBe('state.a[0] || state.err');
    expect(formatOutputPath([], null)).toBe('state');
    expect(formatOutputPath([], ['err'])).toBe('state || state.err');
  });
});

// Parameter names are callers' input, and the table that shares locations lives as long as the isolate.
describe('the shared locations of references stay bounded', () => {
  const withKey = (key: string) => JSON.parse(JSON.stringify({ [key]: '{{ steps.a.output }}' })) as object;

  it('keeps at most 256 Ki characters of parameter names, however many long ones arrive', () => {
    for (let i = 0; i < 200; i++) {
      const key = `k${i}`.padEnd(3_000, 'k');
      expect(collectReferences(withKey(key), ['parameters']).refs[0]!.at).toEqual(['parameters', key]);
    }
    const kept = internedLocations();
    expect(kept.characters).toBeLessThanOrEqual(256 * 1024);
    expect(kept.nodes).toBeLessThanOrEqual(10_000);
  });

  it('keeps no location whose names are over 4 Ki characters, and still reports where it is', () => {
    const before = internedLocations();
    const key = 'x'.repeat(1_000_000);
    const refs = collectReferences(withKey(key), ['parameters']).refs;
    expect(refs[0]!.at).toEqual(['parameters', key]);
    expect(Object.isFrozen(refs[0]!.at)).toBe(true);
    expect(internedLocations()).toEqual(before);
  });

  it('shares one location among the references found at the same place', () => {
    const a = collectReferences({ url: '{{ steps.a.output }}' }, ['parameters']).refs[0]!.at;
    const b = collectReferences({ url: '{{ steps.b.output }}' }, ['parameters']).refs[0]!.at;
    expect(a).toBe(b);
  });
});

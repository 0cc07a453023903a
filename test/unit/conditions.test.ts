import { describe, expect, it } from 'vitest';
import { compileCondition, evaluateCondition, parseCondition } from '../../src/plan/conditions';
import type { RefScope } from '../../src/plan/references';

const scope: RefScope = {
  stepOutput: (id) => (id === 'check' ? { found: true, value: { ok: true, score: 0.9 } } : { found: false }),
  state: {
    sunny: true,
    count: 3,
    name: 'ada',
    empty: '',
    zero: 0,
    list: [1, 2],
    obj: { a: 1 },
    nothing: null,
  },
  input: { flag: false, limit: '10' },
};

const when = (expr: string): boolean => evaluateCondition(expr, scope);

describe('conditions', () => {
  it('reads bare and braced references', () => {
    expect(when('state.sunny')).toBe(true);
    expect(when('{{ state.sunny }}')).toBe(true);
    expect(when('steps.check.output.ok')).toBe(true);
    expect(when('input.flag')).toBe(false);
  });

  it('reads a never-written path as undefined, which is falsy and equal to null', () => {
    expect(when('state.missing')).toBe(false);
    expect(when('!state.missing')).toBe(true);
    expect(when('state.missing == null')).toBe(true);
    expect(when('state.nothing == undefined')).toBe(true);
    expect(when('steps.absent.output.x')).toBe(false);
  });

  it('follows JavaScript truthiness', () => {
    expect(when('state.empty')).toBe(false);
    expect(when('state.zero')).toBe(false);
    expect(when('state.list')).toBe(true);
    expect(when('state.obj')).toBe(true);
  });

  it('compares with literals of every kind', () => {
    expect(when("state.name == 'ada'")).toBe(true);
    expect(when('state.name != "bob"')).toBe(true);
    expect(when('state.count >= 3 && state.count < 4')).toBe(true);
    expect(when('steps.check.output.score > 0.8')).toBe(true);
    expect(when('state.count == -3')).toBe(false);
    expect(when('state.sunny == true && state.nothing === null')).toBe(true);
    expect(when('state.list == state.list')).toBe(true);
  });

  it('compares numbers with numeric strings, strings lexically, and never-written values as false', () => {
    expect(when('input.limit > 9')).toBe(true);
    expect(when("'b' > 'a'")).toBe(true);
    expect(when('state.missing < 1')).toBe(false);
    expect(when('state.missing >= 0')).toBe(false);
    expect(when('state.obj > 0')).toBe(false);
  });

  it('applies precedence: ! over comparisons over && over ||, and parentheses', () => {
    expect(when('false || true && false')).toBe(false);
    expect(when('(false || true) && true')).toBe(true);
    expect(when('!state.sunny || state.count == 3')).toBe(true);
    expect(when('!(state.count == 3)')).toBe(false);
  });

  it('uses equality that is strict except for null and undefined', () => {
    expect(when("state.count == '3'")).toBe(false);
    expect(when('state.zero == false')).toBe(false);
  });

  it('parses strings with escapes', () => {
    expect(compileCondition("state.name == 'it\\'s'").ok).toBe(true);
  });

  it('lists the references a condition reads', () => {
    const parsed = parseCondition('state.a.b && {{ steps.x.output.ok }} || input.y');
    expect(parsed.ok && parsed.refs.map((r) => [r.source, r.stepId, r.path])).toEqual([
      ['state', undefined, ['a', 'b']],
      ['steps', 'x', ['ok']],
      ['input', undefined, ['y']],
    ]);
  });

  it.each([
    ['', 'empty'],
    ['state.a &&', 'unexpected end'],
    ['(state.a', 'expected ")"'],
    ['state.a )', 'unexpected token'],
    ['foo == 1', 'unknown name "foo"'],
    ["state.a == 'x", 'unterminated string'],
    ['1 < state.a < 3', 'chained comparison'],
    ['state.a = 1', 'unexpected "="'],
    ['{{ nope.x }}', 'unknown root'],
    ['state..a', 'expected a name'],
  ])('rejects %j', (expr, why) => {
    const parsed = parseCondition(expr);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toContain(why);
  });

  it('refuses hostile nesting instead of overflowing the stack', () => {
    const parsed = parseCondition('('.repeat(10_000) + 'true' + ')'.repeat(10_000));
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toContain('nested too deeply');
  });

  it('throws when evaluating a condition that does not parse', () => {
    expect(() => when('state.a &&')).toThrow(/Bad condition/);
  });
});

describe('long chains', () => {
  it(
    'evaluates a chain of 100,000 || or && terms as JavaScript does, without nesting a call per term',
    { timeout: 30_000 },
    () => {
      const terms = Array.from({ length: 100_000 }, (_, i) => `state.count == ${i + 10}`);
      expect(evaluateCondition(terms.join(' || '), scope)).toBe(false);
      expect(evaluateCondition([...terms, 'state.count == 3'].join(' || '), scope)).toBe(true);
      expect(evaluateCondition(['state.sunny', ...terms].join(' && '), scope)).toBe(false);
      expect(
        evaluateCondition(Array.from({ length: 100_000 }, () => 'state.sunny').join(' && '), scope),
      ).toBe(true);
    },
  );
});

import { describe, expect, it } from 'vitest';
import { checkTemplate, evaluateCondition, renderTemplate, renderValue } from '../../src/plan/jinja';

const state = {
  subtask_results: { a: 'x'.repeat(600), b: 'yy' },
  n: 2.567,
  list: [1, 2, 3],
  plan: { metadata: {} },
};
const r = (s: string, ctx: Record<string, unknown> = { state }) => renderTemplate(s, ctx);

describe('Jinja2 templates (TEA semantics)', () => {
  it('renders statements, .items(), slicing and filters', () => {
    const t = r(
      '{% if state.subtask_results %}{% for id, result in state.subtask_results.items() %}[{{ id }}]: {{ result[:3] }}\n{% endfor %}{% endif %}',
    );
    expect(t).toEqual({ ok: true, value: '[a]: xxx\n[b]: yy\n' });
    expect(
      r(
        '{{ state.n | round(1) }} {{ state.list | length }} {{ state.list | join(",") }} {{ "Ab" | upper }}{{ "Ab" | lower }}',
      ),
    ).toEqual({
      ok: true,
      value: '2.6 3 1,2,3 ABab',
    });
    expect(r('{{ 3 | round }}|{{ state.x is defined }}|{{ state.list is defined }}')).toEqual({
      ok: true,
      value: '3.0|false|true',
    });
    expect(r('x {{ state.subtask_results.b | tojson }}')).toEqual({ ok: true, value: 'x "yy"' });
    expect(r('{{ state.list[1:] }} {{ state.missing | default(0) }}')).toEqual({
      ok: true,
      value: '[2, 3] 0',
    });
  });

  it('gives a lone expression its value, type and all', () => {
    expect(r('{{ state.list }}')).toEqual({ ok: true, value: [1, 2, 3] });
    expect(r('  {{ state.plan.metadata.replan_count | default(0) > 0 }} ')).toEqual({
      ok: true,
      value: false,
    });
    expect(r('{{ state.n * 2 }}')).toEqual({ ok: true, value: 5.134 });
    expect(r('{{ state.nothing }}')).toEqual({ ok: true, value: null });
    expect(r('{{ \'{"k": 1}\' | fromjson }}')).toEqual({ ok: true, value: { k: 1 } });
  });

  it('names the line of a syntax error and of a render error', () => {
    expect(checkTemplate('first\nsecond {{ state.foo( }}\nthird')).toMatchObject({ ok: false, line: 2 });
    expect(checkTemplate('a\nb\n{% for x in y %}\n{{ x }}')).toMatchObject({ ok: false, line: 3 });
    expect(checkTemplate('{{ a }}\n{{ b')).toMatchObject({ ok: false, line: 2 });
    const bad = r('ok {{ state.n }}\nthen\n{{ state.list.nope() }}');
    expect(bad).toMatchObject({ ok: false, line: 3 });
    expect(!bad.ok && bad.message).toContain('not a function');
    const deep = renderValue({ messages: [{ content: 'fine' }, { content: 'x\n{{ 1 + }}' }] }, { state });
    expect(deep).toMatchObject({ ok: false, path: 'messages.1.content', line: 2 });
  });

  it('evaluates conditions as TEA does', () => {
    const ctx = { state: { ready: true, count: 0, plan: { metadata: { replan_count: 1 } } } };
    expect(evaluateCondition('ready', ctx)).toEqual({ ok: true, value: true });
    expect(evaluateCondition('!ready', ctx)).toEqual({ ok: true, value: false });
    expect(evaluateCondition('count', ctx)).toEqual({ ok: true, value: false });
    expect(evaluateCondition('state.count < 1', ctx)).toEqual({ ok: true, value: true });
    expect(evaluateCondition('{{ state.plan.metadata.replan_count | default(0) > 0 }}', ctx)).toEqual({
      ok: true,
      value: true,
    });
    expect(evaluateCondition('False', ctx)).toEqual({ ok: true, value: false });
  });

  it('bounds the work and the memory of one render, and counts values only read as free', () => {
    const loops = r('{% for a in range(1000) %}{% for b in range(1000) %}x{% endfor %}{% endfor %}');
    expect(loops).toMatchObject({ ok: false, message: expect.stringMatching(/more than 250,000 steps/) });
    const doubled = r(
      "{% set s = 'xxxxxxxxxx' %}{% for i in range(40) %}{% set s = s ~ s %}{% endfor %}{{ s }}",
    );
    expect(doubled).toMatchObject({
      ok: false,
      message: expect.stringMatching(/more than 64 Mi characters/),
    });
    const big = { state: { doc: 'y'.repeat(20_000_000) } };
    expect(r('{{ state.doc | length }}', big)).toEqual({ ok: true, value: 20_000_000 });
    expect(r('{% for i in range(20) %}{{ state.doc | length }},{% endfor %}', big).ok).toBe(true);
    const listed = r(
      '{% set l = [] %}{% for i in range(10) %}{% set l = l + [state.doc] %}{% endfor %}{{ l | length }}',
      big,
    );
    expect(listed).toMatchObject({ ok: false, message: expect.stringMatching(/more than 64 Mi characters/) });
  });

  it('refuses one operation that would make more than the render has left, before it makes it', () => {
    const methods = () => [
      Reflect.get(String.prototype, 'repeat') as unknown,
      Reflect.get(String.prototype, 'replace') as unknown,
      Reflect.get(String.prototype, 'replaceAll') as unknown,
      Reflect.get(Array.prototype, 'join') as unknown,
      Reflect.get(String.prototype, 'split') as unknown,
      Reflect.get(String.prototype, 'matchAll') as unknown,
      Reflect.get(Array, 'from') as unknown,
    ];
    const before = methods();
    const one = /one operation of the template would make [\d,]+ characters/;
    // Each would build one string of 100 M characters or more in a single call of the runtime.
    const doc = { state: { doc: 'z'.repeat(10_000), rows: Array.from({ length: 1000 }, (_, i) => [i]) } };
    for (const t of [
      "{{ 'a\nb' | indent(500000000) }}",
      "{{ 'a\nb' | indent(width=500000000, first=true) }}",
      '{{ state.doc | join(state.doc) }}',
      "{{ state.doc.replace('', state.doc) }}",
      '{{ state.rows | tojson(indent=100000) }}',
    ]) {
      expect({ t, ...r(t, doc) }).toMatchObject({ t, ok: false, message: expect.stringMatching(one) });
    }
    // Each would make millions of values from one text in a single call (2 GB for `.split(' ')` of 20
    // million spaces): refused before it makes them.
    const cut = /one operation of the template would cut a text into more than [\d,]+ pieces/;
    const spaces = "('a\nb' | indent(20000000))";
    for (const t of [
      `{{ ${spaces}.split(' ') | length }}`,
      `{{ ${spaces}.replace(' ', '-') | length }}`,
      `{{ ${spaces} | join(',') | length }}`,
      `{{ ${spaces}[:10] }}`,
      `{{ ${spaces}.replace(' ', 'x ').split() | length }}`,
    ]) {
      expect({ t, ...r(t, doc) }).toMatchObject({ t, ok: false, message: expect.stringMatching(cut) });
    }
    const words = { state: { doc: 'word '.repeat(100_000) } };
    expect(r('{{ state.doc.split() | length }}', words)).toEqual({ ok: true, value: 100_000 });
    expect(r("{{ state.doc.split(' ') | length }}", words)).toEqual({ ok: true, value: 100_001 });
    expect(r('{{ state.doc[:9] }}', words)).toEqual({ ok: true, value: 'word word' });
    expect(r("{{ 'abc'.replace('', '-') }}")).toEqual({ ok: true, value: '-a-b-c-' });
    // The same operations at a sensible size render as before.
    expect(r("{{ 'a\nb' | indent(2, true) }}")).toEqual({ ok: true, value: '  a\n  b' });
    expect(r("{{ ['a', 'b'] | join(', ') }}")).toEqual({ ok: true, value: 'a, b' });
    expect(r("{{ 'a-b-c'.replace('-', '+') }}")).toEqual({ ok: true, value: 'a+b+c' });
    expect(r('{{ state.list | tojson(indent=2) }}')).toEqual({ ok: true, value: '[\n  1,\n  2,\n  3\n]' });
    // Keyword arguments reach the library's filters (edgeplan's own hook had evaluated every argument
    // itself, and knew no keyword: `indent(width=2)` was "Unknown node type").
    expect(r("{{ 'a\nb' | indent(width=2) }}")).toEqual({ ok: true, value: 'a\n  b' });
    expect(r('{{ state.n | round(precision=1) }}')).toEqual({ ok: true, value: 2.6 });
    // Put back once the render ends, refused or not.
    expect(methods()).toEqual(before);
    expect('ab'.repeat(40_000_000).length).toBe(80_000_000);
    expect(' '.repeat(1_000_000).split(' ').length).toBe(1_000_001);
  });
});

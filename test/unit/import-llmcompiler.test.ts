import { describe, expect, it } from 'vitest';
import { parseCallArgs } from '../../src/import/call-args';
import { convertLlmCompiler } from '../../src/import/llmcompiler';
import { dependencies, toolsNamed, validate } from './import-helpers';

function convert(source: string) {
  const r = convertLlmCompiler(source);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r;
}

function errorsOf(source: string) {
  const r = convertLlmCompiler(source);
  if (r.ok) throw new Error('expected the plan to be refused');
  return r.errors;
}

describe('LLMCompiler positional arguments', () => {
  const inputFields = (tool: string) => (tool === 'search' ? ['query', 'limit'] : undefined);

  it('fill the tool’s declared input fields in order, keywords beside them', () => {
    const r = convertLlmCompiler('1. search("Messi age", 3)\n2. search("x", lang="en")\n3. join()', {
      inputFields,
    });
    expect(r.ok && r.plan.steps.map((s) => s.parameters)).toEqual([
      { query: 'Messi age', limit: 3 },
      { query: 'x', lang: 'en' },
    ]);
  });

  it('stay in args for an unknown tool or more of them than fields', () => {
    const r = convertLlmCompiler('1. lookup("a")\n2. search("a", 1, 2)\n3. join()', { inputFields });
    expect(r.ok && r.plan.steps.map((s) => s.parameters)).toEqual([{ args: ['a'] }, { args: ['a', 1, 2] }]);
  });

  it('refuse a field given by position and by name, naming it and the line', () => {
    const r = convertLlmCompiler('1. search("a", query="b")\n2. join()', { inputFields });
    expect(r.ok ? [] : r.errors).toEqual([
      expect.objectContaining({
        code: 'bad_arguments',
        line: 1,
        message: expect.stringContaining('"query" is given by position 1 and by name'),
      }),
    ]);
  });
});

describe('LLMCompiler plans', () => {
  it('imports the paper’s example: independent searches run in parallel, math waits for both', () => {
    const r = convert(
      [
        'Thought: I need both ages before I can subtract.',
        '1. search("Cristiano Ronaldo age")',
        '2. search("Lionel Messi age")',
        '3. math("$1 - $2")',
        'Thought: I can answer now.',
        '4. join()<END_OF_PLAN>',
      ].join('\n'),
    );
    expect(r.plan.steps).toEqual([
      {
        id: '1',
        description: 'I need both ages before I can subtract.',
        action: 'search',
        parameters: { args: ['Cristiano Ronaldo age'] },
        dependencies: [],
      },
      { id: '2', action: 'search', parameters: { args: ['Lionel Messi age'] }, dependencies: [] },
      {
        id: '3',
        action: 'math',
        parameters: { args: ['{{ steps.1.output }} - {{ steps.2.output }}'] },
        dependencies: [],
      },
    ]);
    expect(r.lines).toEqual({ '1': 2, '2': 3, '3': 4 });
    const v = validate(r.plan, toolsNamed('search', 'math'));
    expect(v.errors).toEqual([]);
    expect(dependencies(v.plan!)).toEqual({ '1': [], '2': [], '3': ['1', '2'] });
  });

  it('maps keyword arguments to parameters and keeps a bare $N reference’s type', () => {
    const r = convert(
      [
        '1. web.search(query="edge runtimes", limit=5, fresh=True, since=None)',
        '2. http.get(url=$1, headers={"accept": "text/html", "n": [1, 2.5, -3e2]})',
        '3. llm.call(prompt="Summarise ${2} for ${1}", sources=[$1, ${2}])',
        '4. join()',
      ].join('\n'),
    );
    expect(r.plan.steps.map((s) => [s.action, s.parameters])).toEqual([
      ['web.search', { query: 'edge runtimes', limit: 5, fresh: true, since: null }],
      ['http.get', { url: '{{ steps.1.output }}', headers: { accept: 'text/html', n: [1, 2.5, -300] } }],
      [
        'llm.call',
        {
          prompt: 'Summarise {{ steps.2.output }} for {{ steps.1.output }}',
          sources: ['{{ steps.1.output }}', '{{ steps.2.output }}'],
        },
      ],
    ]);
    const v = validate(r.plan, toolsNamed('web.search', 'http.get', 'llm.call'));
    expect(v.errors).toEqual([]);
    expect(dependencies(v.plan!)).toEqual({ '1': [], '2': ['1'], '3': ['1', '2'] });
  });

  it('mixes positional and keyword arguments, across lines, with comments and code fences', () => {
    const r = convert(
      [
        '```',
        '1. fetch("https://a.example", retries=2)  # first source',
        '2. combine(',
        '     [$1, "literal"],',
        "     label='both',",
        '   )',
        '3. join()',
        '```',
      ].join('\n'),
    );
    expect(r.plan.steps.map((s) => s.parameters)).toEqual([
      { args: ['https://a.example'], retries: 2 },
      { args: [['{{ steps.1.output }}', 'literal']], label: 'both' },
    ]);
    expect(r.lines).toEqual({ '1': 2, '2': 3 });
  });

  it('names the calls to missing tools beside the text’s own problems, in line order', () => {
    const source = [
      '1. demo.sleep(100, "a")',
      '2. demo.nosuch(x=1)',
      '3. demo.echo(first=$9)',
      '4. join()',
    ].join('\n');
    const r = convertLlmCompiler(source, { hasTool: (t) => t.startsWith('demo.') && t !== 'demo.nosuch' });
    // Only the bad reference was reported: the missing tool came up once that was fixed.
    expect(!r.ok && r.errors.map((e) => [e.line, e.code, e.message])).toEqual([
      [2, 'unknown_tool', 'line 2: unknown tool "demo.nosuch"'],
      [3, 'bad_reference', 'line 3: step 3 refers to step 9, which does not come before it ($9)'],
    ]);
    // With the registered names, a near miss says which tool it likely meant, as validation does.
    const names = ['demo.sleep', 'demo.echo', 'web.search'];
    const hinted = convertLlmCompiler('1. web.serch(q=1)\n2. demo.echo(first=$9)', {
      hasTool: (t) => names.includes(t),
      toolNames: () => names,
    });
    expect(!hinted.ok && hinted.errors[0]?.message).toBe(
      'line 1: unknown tool "web.serch" (did you mean "web.search"?)',
    );
    // A text without other problems imports; the plan's check names the missing tool.
    expect(convertLlmCompiler('1. demo.nosuch(x=1)', { hasTool: () => false }).ok).toBe(true);
  });

  it('ends the plan at join() and refuses steps after it', () => {
    expect(errorsOf('1. a()\n2. join()\n3. b(x=$1)')).toEqual([
      {
        code: 'after_join',
        message: 'line 3: b(…) comes after join() on line 2, which ends the plan',
        line: 3,
      },
    ]);
  });

  it('names the line and column of malformed arguments', () => {
    expect(errorsOf('1. search(query="x")\n2. fetch(url=$1, depth=deep)\n3. join()')).toEqual([
      {
        code: 'bad_arguments',
        message: 'line 2: fetch(…): unquoted word "deep": put text in quotes, refer to step N as $N',
        line: 2,
        column: 24,
      },
    ]);
    expect(errorsOf('1. search(query="x)\n2. join()')[0]).toMatchObject({ line: 1, column: 17 });
    expect(errorsOf('1. search(query="x", 3)')[0]!.message).toBe(
      'line 1: search(…): a positional argument cannot follow keyword arguments',
    );
    expect(errorsOf('1. search(query=["a", "b"')[0]!.message).toMatch(
      /^line 1: search\(…\): this "\[" is never closed/,
    );
  });

  it('refuses references to later, missing or the same step, and duplicated numbers', () => {
    const errors = errorsOf('1. a(x=$2)\n2. b(y="$2 and $9")\n2. c()\n3. join()');
    expect(errors.map((e) => e.message)).toEqual([
      'line 1: step 1 refers to step 2, which does not come before it ($2)',
      'line 2: step 2 refers to its own result ($2)',
      'line 2: step 2 refers to step 9, which does not come before it ($9)',
      'line 3: step 2 is already defined on line 2',
    ]);
  });

  it('refuses prose and unnumbered calls with their line', () => {
    expect(errorsOf('Here is my plan:\n1. a()\nsearch(q="x")').map((e) => e.message)).toEqual([
      'line 1: expected "N. tool(arguments)", "Thought: …" or "join()", found "Here is my plan:"',
      'line 3: number the step: "N. search(…)"',
    ]);
    expect(errorsOf('\n\n')).toEqual([
      { code: 'empty_plan', message: 'No steps found: expected lines such as 1. search(query="x")' },
    ]);
  });
});

describe('LLMCompiler call arguments', () => {
  it('reads Python literals: strings with escapes, triple quotes, tuples, dicts and constants', () => {
    const src = `f('it\\'s', """multi\nline""", (1, 2), {"k": False, 3: 'v'}, x=-0.5)`;
    expect(parseCallArgs(src, 1)).toEqual({
      ok: true,
      args: ["it's", 'multi\nline', [1, 2], { k: false, '3': 'v' }],
      kwargs: { x: -0.5 },
      end: src.length,
    });
  });

  it('keeps a "__proto__" key as data', () => {
    const r = parseCallArgs('f({"__proto__": 1})', 1);
    expect(r.ok && Object.keys(r.args[0] as object)).toEqual(['__proto__']);
  });
});

/**
 * What scanYaml reads from a YAML text's tokens before it is parsed: the entries of top-level block
 * sequences (a TEA workflow's nodes, counted against max_steps), its aliases, and some words.
 */
import { describe, expect, it } from 'vitest';
import { isMap, isSeq, parseDocument } from 'yaml';
import { scanYaml } from '../../src/import/yaml-scan';
import { RESEARCH_PLANNER } from './import-helpers';

const DEPTH = { maxDepth: 100 };

/** Each top-level key's entries as counted, and the length of its value as parsed (null: not a block sequence). */
function counted(source: string): { key: string; counted: number; parsed: number | null }[] {
  const scan = scanYaml(source, DEPTH);
  const root = parseDocument(source).contents;
  if (!isMap(root)) return [];
  return root.items.map((pair) => {
    const key = String((pair.key as { value: unknown }).value);
    const value = pair.value;
    const block = isSeq(value) && !value.flow ? value.items.length : null;
    return { key, counted: scan.rootSequences.get(key)?.entries ?? 0, parsed: block };
  });
}

const DOCUMENTS = [
  RESEARCH_PLANNER,
  'nodes:\n  - name: a\n    uses: x\n  - name: b\n    uses: y\n',
  'nodes:\n- name: a\n  uses: x\n- name: b\n  with:\n    list:\n    - 1\n    - 2\n- name: c\n',
  'nodes: &all\n  - a\n  - b\n  # - commented out\n  - |\n    - not an entry\n    - nor this\n  - "- quoted"\n',
  'nodes: [a, b, c]\nother:\n  - - x\n    - y\n  - z\n',
  '"nodes":\n  - {name: a, uses: x}\n  - {name: b, uses: x}\nedges: []\n',
  '  nodes:\n  - a\n  - b\n  name: indented root\n',
  'nodes: !!seq\n  - a\n  -\n  - - inner\n    - inner\n',
  'settings:\n  nodes:\n    - not at the top\nnodes:\n  - a\n',
];

describe('scanYaml', () => {
  it('counts the entries of each top-level block sequence as the parser builds them, and nothing else', () => {
    for (const doc of DOCUMENTS) {
      for (const row of counted(doc)) {
        expect({ doc, ...row, counted: row.counted }).toEqual({ doc, ...row, counted: row.parsed ?? 0 });
      }
    }
  });

  it('says where each top-level key is', () => {
    const source = 'name: w\nnodes:\n  - a\n';
    expect(scanYaml(source, DEPTH).rootSequences.get('nodes')).toEqual({ entries: 1, offset: 8 });
  });

  it('counts the aliases and points at the first past the limit', () => {
    const source = 'a: &a 1\nb: [*a, *a, *a]\n';
    expect(scanYaml(source, { ...DEPTH, maxAliases: 2 }).aliases).toEqual({
      count: 3,
      pastLimit: source.lastIndexOf('*a'),
    });
    expect(scanYaml(source, { ...DEPTH, maxAliases: 3 }).aliases).toEqual({ count: 3, pastLimit: null });
  });

  it('finds the words asked for among scalars, quoted or not, and not in comments', () => {
    const words = new Set(['goto', 'edges']);
    expect(scanYaml('a:\n  "goto": b\n', { ...DEPTH, words }).words).toEqual(new Set(['goto']));
    expect(scanYaml("a: 'edges'\n", { ...DEPTH, words }).words).toEqual(new Set(['edges']));
    expect(scanYaml('a: b # goto edges\n', { ...DEPTH, words }).words).toEqual(new Set());
  });
});

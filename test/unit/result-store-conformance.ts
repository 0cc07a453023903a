/**
 * One conformance suite for every ResultStore (STYLE §4, langgraph's checkpointers): the memory store
 * runs it in Node (result-store.test.ts), the SQLite store inside a Durable Object
 * (test/workers/result-store-sql.test.ts). `use` hands a fresh store to a synchronous body.
 */
import { describe, expect, it } from 'vitest';
import type { ResultStore } from '../../src/engine/state';

export type WithStore = (body: (store: ResultStore) => void) => Promise<void>;

const values: [string, unknown][] = [
  ['an object', { items: [{ url: 'https://a.test', n: 1.5 }], ok: true, none: null }],
  ['a string with unicode', 'héllo — 日本 🙂'],
  ['an empty string', ''],
  ['zero', 0],
  ['false', false],
  ['null', null],
  ['an array', [1, 'two', { three: 3 }]],
  ['an object shaped like a spill reference', { $blob: 'not a reference' }],
  ['an object with a __proto__ key', JSON.parse('{"__proto__": {"polluted": true}, "x": 1}')],
  ['a value over 1 MiB', { text: 'x'.repeat(1_200_000) }],
];

export function resultStoreConformance(name: string, use: WithStore): void {
  describe(`${name} (ResultStore conformance)`, () => {
    it('has no output or variable it was not given', async () => {
      await use((store) => {
        expect(store.getOutput('nope')).toEqual({ found: false });
        expect(store.getVar('nope')).toEqual({ found: false });
        expect(store.varKeys()).toEqual([]);
      });
    });

    for (const [what, value] of values) {
      it(`gives back ${what} exactly, as an output and as a variable`, async () => {
        await use((store) => {
          store.setOutput('s', value);
          store.setVar('v', value);
          expect(store.getOutput('s')).toEqual({ found: true, value });
          expect(store.getVar('v')).toEqual({ found: true, value });
        });
      });
    }

    it('replaces an output, deletes it, and deleting an unknown one is harmless', async () => {
      await use((store) => {
        store.setOutput('s', { big: 'y'.repeat(700_000) });
        store.setOutput('s', 'small');
        expect(store.getOutput('s')).toEqual({ found: true, value: 'small' });
        store.deleteOutput('s');
        store.deleteOutput('never-set');
        expect(store.getOutput('s')).toEqual({ found: false });
      });
    });

    it('lists each variable once, however often it is written', async () => {
      await use((store) => {
        store.setVar('b', 1);
        store.setVar('a', 2);
        store.setVar('b', 3);
        expect(store.varKeys().sort()).toEqual(['a', 'b']);
        expect(store.getVar('b')).toEqual({ found: true, value: 3 });
      });
    });

    it('keeps outputs and variables apart', async () => {
      await use((store) => {
        store.setOutput('k', 'output');
        store.setVar('k', 'variable');
        expect(store.getOutput('k')).toEqual({ found: true, value: 'output' });
        expect(store.getVar('k')).toEqual({ found: true, value: 'variable' });
      });
    });
  });
}

// Runs an example with the Node that `npm install` put in node_modules/.bin:
//
//   node_modules/.bin/node examples/run.mjs basic-planning | approval | parallel
//
// The examples import the TypeScript sources directly. Node strips types on its own, but not from
// files that use constructor parameter properties or import without an extension (both in src/), so
// this file registers two small hooks first: extension-less relative imports resolve to `.ts`, and
// `.ts` files are compiled with Node's own `stripTypeScriptTypes` in transform mode.
import console from 'node:console';
import { readFileSync } from 'node:fs';
import { registerHooks, stripTypeScriptTypes } from 'node:module';
import process from 'node:process';
import { createInterface } from 'node:readline/promises';
import { fileURLToPath, URL } from 'node:url';

const emitWarning = process.emitWarning.bind(process);
process.emitWarning = (warning, ...rest) => {
  if (String(warning).includes('stripTypeScriptTypes')) return;
  emitWarning(warning, ...rest);
};

registerHooks({
  resolve(specifier, context, next) {
    try {
      return next(specifier, context);
    } catch (err) {
      if (!/^\.{1,2}\//.test(specifier) || /\.[cm]?[jt]s$/.test(specifier)) throw err;
      for (const suffix of ['.ts', '/index.ts']) {
        try {
          return next(specifier + suffix, context);
        } catch {
          // try the next suffix
        }
      }
      throw err;
    }
  },
  load(url, context, next) {
    if (!url.startsWith('file:') || !url.endsWith('.ts') || url.includes('/node_modules/')) {
      return next(url, context);
    }
    const source = readFileSync(fileURLToPath(url), 'utf8');
    return {
      format: 'module',
      source: stripTypeScriptTypes(source, { mode: 'transform', sourceUrl: url }),
      shortCircuit: true,
    };
  },
});

const name = process.argv[2];
if (!name) {
  console.error('usage: node examples/run.mjs <basic-planning | approval | parallel>');
  process.exit(2);
}
const file = new URL(`./${name.replace(/\.ts$/, '')}.ts`, import.meta.url);
const example = await import(file.href);

// The seed's input(): a question on the terminal, answered on stdin (or piped: `echo n | …`).
const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: false });
const lines = rl[Symbol.asyncIterator]();
const io = {
  log: (line) => console.log(line),
  ask: async (question) => {
    process.stdout.write(question);
    const next = await lines.next();
    return next.done ? '' : next.value.trim();
  },
};
try {
  await example.main(io);
} finally {
  rl.close();
}

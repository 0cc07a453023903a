#!/usr/bin/env node
/** Writes docs/errors.md from src/error-codes.ts (`npm run gen:docs`); see scripts/error-docs.ts. */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorDocs } from './error-docs.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const doc = errorDocs(readFileSync(resolve(root, 'src/error-codes.ts'), 'utf8'));
writeFileSync(resolve(root, 'docs/errors.md'), doc);
console.log(`docs/errors.md: ${doc.split('\n').filter((l) => l.startsWith('| `')).length} codes`);

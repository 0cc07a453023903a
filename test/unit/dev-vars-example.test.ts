/**
 * `.dev.vars.example` is where a new team learns what the Worker reads ("lists every one the Worker
 * reads", the README says): every variable and secret declared in src/env.d.ts is in it, so one added
 * to the Worker cannot be left out of it unnoticed (RUN_RETENTION_DAYS was).
 */
import { describe, expect, it } from 'vitest';
import envTypes from '../../src/env.d.ts?raw';
import example from '../../.dev.vars.example?raw';

/** The string-valued members of `Cloudflare.Env`: variables and secrets, not bindings. */
const variables = [...envTypes.matchAll(/^\s+([A-Z][A-Z0-9_]*)\??: string;$/gm)].map((m) => m[1]!);
/** The names `.dev.vars.example` assigns (`NAME=`), commented examples left out. */
const listed = new Set([...example.matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!));

describe('.dev.vars.example', () => {
  it('lists every variable and secret the Worker reads (src/env.d.ts)', () => {
    expect(variables).toContain('API_TOKEN');
    expect(variables.filter((name) => !listed.has(name))).toEqual([]);
  });

  it('lists nothing the Worker does not read', () => {
    expect([...listed].filter((name) => !variables.includes(name))).toEqual([]);
  });
});

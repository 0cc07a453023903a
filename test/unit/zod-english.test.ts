/**
 * What `zod` is in the Worker bundle (src/zod-english, wrangler.toml `[alias]`): zod's exports, the
 * same values, with English the only locale, so messages read as before; and the Worker bundled with
 * wrangler.toml's entry, conditions and aliases carries no other language (258 KiB of the upload did).
 */
import { build, type Plugin } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { unstable_readConfig } from 'wrangler';
import * as zod from 'zod';
import * as english from '../../src/zod-english';

/** The runtime members of a module namespace (or of zod's `z`, itself one), sorted. */
const keys = (ns: object) => Object.keys(ns).sort();

describe('src/zod-english', () => {
  it('exports what zod exports, the same values, except the locales', () => {
    expect(keys(english)).toEqual(keys(zod));
    const differing = keys(zod).filter(
      (k) => english[k as keyof typeof english] !== zod[k as keyof typeof zod],
    );
    expect(differing).toEqual(['core', 'default', 'locales', 'z']);
    // `z` (and the default export) is a namespace of the same members, `z` shadowed (zod's has none).
    expect(keys(english.z).filter((k) => k !== 'z')).toEqual(keys(zod.z));
    expect(english.z.z).toBeUndefined();
    expect(english.default).toBe(english.z);
    for (const k of keys(zod.z).filter((k) => k !== 'core' && k !== 'locales'))
      expect([k, english.z[k as keyof typeof english.z]]).toEqual([k, zod.z[k as keyof typeof zod.z]]);
    // core: the same, but for its locales.
    expect(keys(english.core)).toEqual(keys(zod.core));
    for (const k of keys(zod.core).filter((k) => k !== 'locales'))
      expect([k, english.core[k as keyof typeof english.core]]).toEqual([
        k,
        zod.core[k as keyof typeof zod.core],
      ]);
    // English only, zod's own function; one object for `locales` and `core.locales`, as in zod.
    expect(keys(english.locales)).toEqual(['en']);
    expect(english.locales.en).toBe(zod.locales.en);
    expect(english.core.locales).toBe(english.locales);
  });

  it('gives the English messages zod gives', () => {
    const shape = (z: Pick<typeof zod.z, 'strictObject' | 'string' | 'number' | 'enum'>) =>
      z.strictObject({ goal: z.string().min(1), n: z.number().int(), kind: z.enum(['a', 'b']) });
    const input = { goal: '', n: 1.5, kind: 'c', extra: true };
    const messages = (r: { error?: { issues: { message: string }[] } }) =>
      r.error?.issues.map((i) => i.message);
    const ours = messages(shape(english.z).safeParse(input));
    expect(ours).toEqual(messages(shape(zod.z).safeParse(input)));
    expect(ours).toEqual([
      'Too small: expected string to have >=1 characters',
      'Invalid input: expected int, received number',
      'Invalid option: expected one of "a"|"b"',
      'Unrecognized key: "extra"',
    ]);
    expect(new english.z.ZodError([])).toBeInstanceOf(zod.ZodError);
  });
});

describe('the Worker bundle', () => {
  it('carries no locale but English', async () => {
    // wrangler.toml's entry and aliases, applied as wrangler does (exact specifiers only: `zod/v4`
    // must stay zod's), with wrangler's conditions for workerd; the runtime's modules are external.
    const config = unstable_readConfig({ config: 'wrangler.toml' });
    const alias = config.alias ?? {};
    expect(alias.zod).toBe('./src/zod-english/index.ts');
    const aliases: Plugin = {
      name: 'wrangler-alias',
      setup(b) {
        b.onResolve({ filter: /.*/ }, async (args) => {
          const to = Object.hasOwn(alias, args.path) ? alias[args.path] : undefined;
          if (to === undefined) return undefined;
          return b.resolve(to, { kind: args.kind, resolveDir: '.' });
        });
      },
    };
    const result = await build({
      entryPoints: [config.main!],
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'neutral',
      conditions: ['workerd', 'worker', 'browser'],
      mainFields: ['browser', 'module', 'main'],
      external: ['cloudflare:*', 'node:*'],
      plugins: [aliases],
      write: false,
      metafile: true,
      outdir: 'bundle',
      logLevel: 'silent',
    });
    const output = Object.values(result.metafile.outputs)[0]!;
    const locales = Object.entries(output.inputs)
      .filter(([path, { bytesInOutput }]) => path.includes('zod/v4/locales/') && bytesInOutput > 0)
      .map(([path]) => path.replace(/.*\/locales\//, ''));
    expect(locales).toEqual(['en.js']);
    expect(result.outputFiles[0]!.text).toContain('Invalid input: expected');
  }, 120_000);
});

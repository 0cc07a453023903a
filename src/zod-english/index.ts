/**
 * What `zod` resolves to in the Worker bundle (wrangler.toml `[alias]`), and in a team's Worker as the
 * package's `edgeplan/zod-english` (scripts/build-zod-english.mjs; examples/custom-worker's
 * wrangler.toml): zod/v4 as it is, except that
 * `locales` (and `core.locales`) hold English only. esbuild cannot shake a namespace that escapes as a
 * value, and zod's `z` does: `import { z } from 'zod'` re-exports `import * as z`, and
 * @hono/zod-openapi calls `extendZodWithOpenApi(z)`. So every language's error messages (258 KiB of
 * the upload, ~38 KiB gzip) rode along though only English is ever used. This `z` is a namespace
 * of the same classes and functions (zod registers English itself on the first schema), so messages
 * and `instanceof` are unchanged; only `z.locales.fr` and the like are missing. Tests and the
 * library import zod itself; test/unit/zod-english.test.ts holds the two to the same exports.
 */
import * as z from './classic';

export * from './classic';
export { z, z as default };

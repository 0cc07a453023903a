/**
 * The team's tools: what the Worker (src/index.ts) registers, and what `npm test` runs in a plan in
 * process (test/tools.test.ts). They import `edgeplan`, not `edgeplan/worker`, so they load in plain
 * Node as well as in the Worker.
 */
import { defineTool } from 'edgeplan';
import { z } from 'zod';

/** `{name}` → `{greeting}`. A secret would come from the bindings (`ctx.env`), never from the plan. */
export const greet = defineTool({
  name: 'example.greet',
  description: 'Greets someone by name.',
  version: '1',
  input: z.object({ name: z.string().min(1) }),
  output: z.object({ greeting: z.string() }),
  idempotent: true,
  deterministic: true,
  run: ({ name }, ctx) => {
    // A secret from .dev.vars (`wrangler secret put` deployed); `GREETING_SIGNATURE=` left empty is none.
    const sig = ctx.env.GREETING_SIGNATURE;
    const signature = typeof sig === 'string' && sig !== '' ? ` — ${sig}` : '';
    return Promise.resolve({ greeting: `Hello, ${name}!${signature}` });
  },
});

/** Every tool of the team's, as the Worker registers them. */
export const tools = [greet];

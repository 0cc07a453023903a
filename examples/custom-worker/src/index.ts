/**
 * A team's own edgeplan Worker: the whole runtime from `edgeplan/worker`, plus one tool of its own.
 * wrangler binds the exports `PlanRun` (the run's Durable Object) and `default` (HTTP + queue).
 */
import { createEdgeplan, defineTool } from 'edgeplan/worker';
import { z } from 'zod';

/** `{name}` → `{greeting}`. A secret would come from the bindings (`ctx.env`), never from the plan. */
const greet = defineTool({
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

const edgeplan = createEdgeplan({ tools: [greet] });

export const PlanRun = edgeplan.PlanRun;
export default edgeplan.default;

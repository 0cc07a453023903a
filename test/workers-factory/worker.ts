/**
 * A team's Worker as the tests see it: built with createEdgeplan and one tool of its own that reads a
 * secret from its bindings (`ctx.env`), never from the plan.
 */
import { z } from 'zod';
import { createEdgeplan, defineTool } from '../../src/worker-factory';

export const greet = defineTool({
  name: 'team.greet',
  description: 'Greets someone, signed with the GREETER_SECRET binding.',
  version: '1',
  input: z.object({ name: z.string().min(1) }),
  output: z.object({ greeting: z.string(), signed: z.string() }),
  idempotent: true,
  deterministic: true,
  run: ({ name }, ctx) =>
    Promise.resolve({ greeting: `Hello, ${name}!`, signed: String(ctx.env.GREETER_SECRET) }),
});

const edgeplan = createEdgeplan({ tools: [greet] });

export const PlanRun = edgeplan.PlanRun;
export { DemoCounters } from '../../src/worker-factory';
export default edgeplan.default;

/**
 * A team's Worker as the tests see it: built with createEdgeplan and tools of its own — one that reads
 * a secret from its bindings (`ctx.env`), never from the plan, one that fails with a long message, and
 * one that knows a retry cannot help, and one whose definition throws in the run object's decision.
 */
import { z } from 'zod';
import { createEdgeplan, defineTool, ToolError } from '../../src/worker-factory';

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

/** Fails with a message of `chars` times `char`: a tool passing on a whole response body as its error. */
export const fail = defineTool({
  name: 'team.fail',
  description: 'Throws an error whose message is `char` repeated `chars` times.',
  version: '1',
  input: z.object({ char: z.string().length(1), chars: z.number().int().min(0) }),
  idempotent: true,
  deterministic: true,
  placement: 'object',
  run: ({ char, chars }) => Promise.reject(new Error(char.repeat(chars))),
});

/** An item lookup that knows a missing item stays missing: a retry cannot help. */
export const lookup = defineTool({
  name: 'team.lookup',
  description: 'Looks an item up; a missing one fails at once, not retried.',
  version: '1',
  input: z.object({ sku: z.string().min(1) }),
  idempotent: true,
  deterministic: false,
  placement: 'object',
  run: ({ sku }) => Promise.reject(new ToolError('item_not_found', `no item ${sku}`, { retryable: false })),
});

/**
 * A tool whose definition throws when the run object reads where its steps run — a fault injected
 * into the object's decision (nothing in edgeplan's own code throws there today): the decision that
 * makes one of its steps ready throws as a bug of ours would (test/workers-factory/decision-faults.test.ts).
 */
export const haunted: typeof greet = {
  ...greet,
  name: 'team.haunted',
  description: 'Throws whenever the run object asks where its steps run.',
  get placement(): 'object' {
    throw new RangeError('Maximum call stack size exceeded');
  },
};

const edgeplan = createEdgeplan({ tools: [greet, fail, lookup, haunted] });

export const PlanRun = edgeplan.PlanRun;
export { DemoCounters } from '../../src/worker-factory';
export default edgeplan.default;

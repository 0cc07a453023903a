/**
 * The team's tools in a plan, in process: `npm test` (Node's own test runner, no Worker, no wrangler).
 * edgeplan's LocalRunner runs the plan as the Worker's run object does — references, retries,
 * failures — in memory, so a tool is tried in a plan in well under a second.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LocalRunner } from 'edgeplan';
import { greet, tools } from '../src/tools.ts';

test('example.greet greets, and a later step reads its output', async () => {
  const runner = new LocalRunner({ tools, env: { GREETING_SIGNATURE: 'the team' } });
  runner.start({
    plan: {
      steps: [
        { id: 'hi', action: 'example.greet', parameters: { name: 'Ada' } },
        { id: 'again', action: 'example.greet', parameters: { name: '{{ steps.hi.output.greeting }}' } },
      ],
    },
  });
  const run = await runner.done();
  assert.equal(run.status, 'completed');
  assert.deepEqual(run.final_output, { greeting: 'Hello, Hello, Ada! — the team! — the team' });
});

test('example.greet takes no empty name', () => {
  assert.equal(greet.input.safeParse({ name: '' }).success, false);
});

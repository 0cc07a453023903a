/**
 * `agent.message` — seed 003's `message` step: the agent says something to the user. The message is
 * the step's output (`{message}`), so it is in the trace, the run's results and the views; nothing is
 * called. A plan's `type: "message"` step becomes this.
 */
import { z } from 'zod';
import { defineTool } from '../registry';

export const agentMessage = defineTool({
  name: 'agent.message',
  description: 'Says something to the user: the message is the output ({message}). Seed 003 `message` steps.',
  version: '1',
  input: z.object({ message: z.string().max(100_000) }),
  output: z.object({ message: z.string() }),
  idempotent: true,
  deterministic: true,
  estimated_latency_ms: 0,
  estimated_tokens: 0,
  // Nothing is called: carried out in the run's object, no queue hop.
  placement: 'object',
  run: ({ message }) => Promise.resolve({ message }),
});

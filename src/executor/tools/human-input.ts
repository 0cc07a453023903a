/**
 * `human.input` (SPEC §4): pauses the step until a person answers, and the answer is its output — in
 * the run's object (`POST /v1/runs/:id/input`) and in process (`LocalRunner.provideInput`) alike: the
 * tool only defers to a person; the runner asks and records the answer.
 */
import { z } from 'zod';
import { deferToPerson } from '../deferred';
import { readableSchema } from '../../plan/stage-schema';
import { defineTool } from '../registry';

const HOUR = 3600_000;

/**
 * `human.input`'s `schema`: a JSON Schema the answer must fit — refused when it does not, so a plan
 * that asks for `{refund: boolean}` never gets `"maybe"`. One zod cannot read is a finding when the
 * plan is validated, not a question nobody can answer.
 */
const AnswerSchema = z
  .union([z.boolean(), z.record(z.string(), z.unknown())])
  .superRefine((schema, ctx) => {
    const readable = readableSchema(schema);
    if (!readable.ok)
      ctx.addIssue({ code: 'custom', message: `not a JSON Schema edgeplan can check: ${readable.message}` });
  })
  .describe(
    'JSON Schema the answer must fit: an answer that does not is refused (400) and the step keeps waiting',
  );

/**
 * @example
 * const runner = new LocalRunner({ tools: [humanInput] });
 * runner.start({ plan: { steps: [{ id: 'ask', action: 'human.input', parameters: { prompt: 'Ship it?' } }] } });
 * runner.provideInput('yes', 'ask'); // the step's output is 'yes'
 */
export const humanInput = defineTool({
  name: 'human.input',
  description:
    'Pauses the run (awaiting_input) until someone answers with POST /v1/runs/:id/input; the answer is the output.',
  version: '1',
  input: z.object({ prompt: z.string().min(1), schema: AnswerSchema.optional() }),
  idempotent: true,
  deterministic: false,
  timeout_ms: 24 * HOUR,
  run: ({ prompt, schema }) => Promise.resolve(deferToPerson(prompt, schema)),
});

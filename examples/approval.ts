/**
 * Seed 000 §5.2, "Planning with Human Approval", in TypeScript: the plan is shown to a person before
 * anything runs, and runs only if they answer "y". Plans come from a rule-based planner (no LLM).
 *
 *   node_modules/.bin/node examples/run.mjs approval          # asks on the terminal
 *   echo n | node_modules/.bin/node examples/run.mjs approval # rejected: nothing runs
 */
import { z } from 'zod';
import {
  Agent,
  defineTool,
  PlanningCallbacks,
  PlanningPattern,
  randomIds,
  RuleBasedPlanner,
  systemClock,
  type Plan,
  type PlanExecutionResult,
} from '../src/index';
import { consoleIO, type ExampleIO } from './support/io';

/** Rows the example "database" holds, and what `send_email` sent. */
const CUSTOMERS = [
  { email: 'ada@example.com', plan: 'pro', renews: '2026-02-01' },
  { email: 'alan@example.com', plan: 'free', renews: null },
  { email: 'grace@example.com', plan: 'pro', renews: '2026-02-03' },
];
export const outbox: string[] = [];

export const queryCustomers = defineTool({
  name: 'query_customers',
  description: 'Lists customers on a plan',
  version: '1',
  input: z.object({ plan: z.enum(['free', 'pro']) }),
  output: z.object({ emails: z.array(z.string()) }),
  idempotent: true,
  deterministic: true,
  run: ({ plan }) =>
    Promise.resolve({ emails: CUSTOMERS.filter((c) => c.plan === plan).map((c) => c.email) }),
});

export const sendEmail = defineTool({
  name: 'send_email',
  description: 'Sends one email to each recipient (a side effect: worth approving first)',
  version: '1',
  input: z.object({ to: z.array(z.string()), subject: z.string() }),
  output: z.object({ sent: z.number() }),
  idempotent: false,
  deterministic: false,
  run: ({ to, subject }) => {
    for (const address of to) outbox.push(`${address}: ${subject}`);
    return Promise.resolve({ sent: to.length });
  },
});

/** Goal → steps, deterministically: the rule-based planner of seed 003. */
const planner = new RuleBasedPlanner({
  clock: systemClock,
  ids: randomIds,
  rules: [
    {
      id: 'renewal-reminder',
      match: (state) => /renewal/i.test(state.goal),
      toPlanStep: () => [
        {
          id: 'find',
          description: 'Find every customer on the pro plan',
          action: 'query_customers',
          parameters: { plan: 'pro' },
          dependencies: [],
        },
        {
          id: 'remind',
          description: 'Email each of them a renewal reminder',
          action: 'send_email',
          parameters: { to: '{{ steps.find.output.emails }}', subject: 'Your plan renews soon' },
          dependencies: ['find'],
        },
      ],
    },
  ],
});

/** Custom approval callback */
class MyCallbacks extends PlanningCallbacks {
  readonly #io: ExampleIO;

  constructor(io: ExampleIO) {
    super();
    this.#io = io;
  }

  override async onPlanApproved(plan: Plan): Promise<boolean> {
    this.#io.log('Proposed plan:');
    for (const step of plan.steps) this.#io.log(`  - ${step.description}`);
    const response = await this.#io.ask('Approve? (y/n): ');
    return response.toLowerCase() === 'y';
  }
}

export async function main(io: ExampleIO = consoleIO()): Promise<PlanExecutionResult> {
  const pattern = new PlanningPattern({
    requirePlanApproval: true,
    maxSteps: 20,
  });

  const agent = new Agent({
    pattern,
    callbacks: new MyCallbacks(io),
    tools: [queryCustomers, sendEmail],
    planner,
  });

  const result = await agent.run('Send a renewal reminder to every pro customer');
  io.log(
    result.success
      ? `Approved and done: ${outbox.length} email(s) sent`
      : `Not run (${result.status}: ${result.error?.message ?? 'no reason given'}); ${outbox.length} email(s) sent`,
  );
  return result;
}

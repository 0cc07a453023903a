/**
 * Seed 004's four worked examples, run as the seed describes them: the plan is carried as context
 * from turn to turn (`strategy: "iterative"`), the LLM (scripted here) sees the current plan and the
 * state each turn and follows, extends or replaces it. Tools are defined in code.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, ToolRegistry } from '../../src/executor/registry';
import { ToolError } from '../../src/errors';
import { LocalRunner } from '../../src/library/local-runner';
import { pipelineProvider } from '../../src/library/pipeline-provider';
import { scriptedLlm } from './planner-helpers';

const any = z.record(z.string(), z.unknown());
const tool = (name: string, run: (input: Record<string, unknown>) => unknown) =>
  defineTool({
    name,
    description: name,
    version: '1',
    input: any,
    idempotent: true,
    deterministic: false,
    run: (i) => Promise.resolve(run(i)),
  });

/** A seed-004 solution: `_tool` calls with `†` references, as the LLM writes them. */
const calls = (list: Record<string, unknown>[]) => JSON.stringify(list);

/** Seed 004's payment example: the card is declined; confirming and reporting are recorded in `done`. */
function paymentTools(done: string[]) {
  return [
    tool('processPayment', () => {
      throw new ToolError('card_declined', 'Your card was declined.', { retryable: false });
    }),
    tool('confirmOrder', () => (done.push('confirm'), { ok: true })),
    tool('reportFailure', (i) => (done.push('report'), { reported: i.error })),
  ];
}

/** The payment example's first plan: pay (a failure lands in †state.error), then confirm. */
const happy = [
  { _tool: 'processPayment', amount: '†input.amount', _outputPath: '†state.receipt || †state.error' },
  { _tool: 'confirmOrder', receipt: '†state.receipt' },
];

async function runIterative(
  tools: ReturnType<typeof tool>[],
  replies: string[],
  opts: { input?: unknown; goal: string },
) {
  const registry = new ToolRegistry(tools);
  const llm = scriptedLlm(replies);
  const clock = { now: () => new Date() };
  let n = 0;
  const ids = { id: (p: string) => `${p}_${++n}`, uuid: () => crypto.randomUUID() };
  const runner = new LocalRunner({
    tools: registry,
    planner: pipelineProvider({
      tools: registry,
      llm: { apiKey: 'k', baseURL: 'https://llm.test/v1', model: 'scripted', fetch: llm.fetch },
      clock,
      ids,
    }),
  });
  runner.start({
    goal: opts.goal,
    input: opts.input ?? {},
    config: { strategy: 'iterative', execution_mode: 'sequential', retry_failed_steps: 0 },
  });
  const snap = await runner.done();
  return { snap, llm };
}

describe('seed 004 worked examples through the plan-as-context loop', () => {
  it('planning one step ahead: the refund follows the plan despite the chargeback history', async () => {
    const done: string[] = [];
    const tools = [
      tool('checkBillingHistory', () => (done.push('history'), { orders: 5, lastChargeback: '2025-09-10' })),
      tool(
        'issueRefund',
        (i) => (done.push('refund'), { confirmationId: 'refund_xyz789', amount: i.amount }),
      ),
      tool('escalateToSupervisor', () => (done.push('escalate'), { escalated: true })),
    ];
    const plan = [
      { _tool: 'checkBillingHistory', customerId: '†input.customerId', _outputPath: '†state.billingHistory' },
      { _tool: 'issueRefund', customerId: '†input.customerId', amount: '†input.amount' },
    ];
    const { snap, llm } = await runIterative(tools, [calls(plan), calls(plan)], {
      goal: "I'd like a refund for my last order.",
      input: { customerId: 'cust_123', amount: 50 },
    });
    expect(snap.status).toBe('completed');
    expect(done).toEqual(['history', 'refund']);
    expect(snap.state.billingHistory).toEqual({ orders: 5, lastChargeback: '2025-09-10' });
    // The second turn's context held the plan and the state the first turn produced.
    expect(llm.sent[1]!.body.messages[1]!.content).toContain('lastChargeback');
  });

  it('adjusting a plan: new information (a dog) replaces bookHotel with findPetFriendlyHotel', async () => {
    const done: string[] = [];
    const tools = [
      tool('bookFlight', (i) => (done.push(`flight:${String(i.destination)}`), { flight: 'LH123' })),
      tool('bookHotel', () => (done.push('hotel'), { hotel: 'Hotel Adlon' })),
      tool(
        'findPetFriendlyHotel',
        (i) => (done.push(`pet-hotel:${String(i.destination)}`), { hotel: 'Dog Inn' }),
      ),
    ];
    const replanned = [
      { _tool: 'bookFlight', destination: '†input.destination' },
      { _tool: 'findPetFriendlyHotel', destination: '†input.destination' },
    ];
    const { snap } = await runIterative(tools, [calls(replanned), calls(replanned)], {
      goal: "Book my trip. Actually, I'll be traveling with my dog.",
      input: { destination: 'Berlin', instruction: "Actually, I'll be traveling with my dog." },
    });
    expect(snap.status).toBe('completed');
    expect(done).toEqual(['flight:Berlin', 'pet-hotel:Berlin']);
  });

  it('handling failure: a declined payment lands in †state.error and the next turn reports it', async () => {
    const done: string[] = [];
    const tools = paymentTools(done);
    const recovery = [...happy, { _tool: 'reportFailure', error: '†state.error' }];
    const { snap, llm } = await runIterative(tools, [calls(happy), calls(recovery), calls(recovery)], {
      goal: 'Take the payment and confirm the order',
      input: { amount: 50 },
    });
    expect(snap.status).toBe('completed');
    expect(snap.step_statuses).toMatchObject({
      processPayment_1: 'failed',
      confirmOrder_1: 'skipped',
      reportFailure_1: 'completed',
    });
    expect(done).toEqual(['report']);
    expect(snap.state.error).toMatchObject({ code: 'card_declined', message: 'Your card was declined.' });
    expect(llm.sent[1]!.body.messages[1]!.content).toContain('card_declined');
  });

  it('a solution’s non-null output ends the loop with that output once its calls ran', async () => {
    const done: string[] = [];
    const tools = paymentTools(done);
    // The seed's replanned solution: report the failure, and answer.
    const replanned = JSON.stringify({
      calls: [...happy, { _tool: 'reportFailure', error: '†state.error' }],
      output: { status: 'Failed' },
    });
    const { snap, llm } = await runIterative(
      tools,
      [JSON.stringify({ calls: happy, output: null }), replanned],
      {
        goal: 'Take the payment and confirm the order',
        input: { amount: 50 },
      },
    );
    expect(snap.status).toBe('completed');
    expect(done).toEqual(['report']);
    expect(snap.final_output).toEqual({ status: 'Failed' });
    expect(llm.sent).toHaveLength(2); // no third turn: the answer ended the loop
  });

  it('schema-guided planning: detect → isEnglish → translate, wired through state', async () => {
    const tools = [
      tool('detectLanguage', () => 'fr'),
      tool('isEnglish', (i) => i.language === 'en'),
      tool('translateText', (i) => (i.isEnglish ? i.text : 'Hello world')),
    ];
    const plan = [
      { _tool: 'detectLanguage', text: '†input.text', _outputPath: '†state.language' },
      { _tool: 'isEnglish', language: '†state.language', _outputPath: '†state.isEnglish' },
      {
        _tool: 'translateText',
        text: '†input.text',
        isEnglish: '†state.isEnglish',
        _outputPath: '†state.translatedText',
      },
    ];
    const { snap } = await runIterative(tools, [calls(plan), calls(plan)], {
      goal: 'Translate the text to English if needed',
      input: { text: 'Bonjour le monde' },
    });
    expect(snap.status).toBe('completed');
    expect(snap.state).toMatchObject({ language: 'fr', isEnglish: false, translatedText: 'Hello world' });
  });
});

import { describe, expect, it } from 'vitest';
import * as approval from '../../examples/approval';
import * as basic from '../../examples/basic-planning';
import * as parallel from '../../examples/parallel';
import type { ExampleIO } from '../../examples/support/io';

/** An io that records what the example prints and answers its questions from a script. */
function scriptedIO(...answers: string[]) {
  const lines: string[] = [];
  const questions: string[] = [];
  const io: ExampleIO = {
    log: (line) => lines.push(line),
    ask: (question) => {
      questions.push(question);
      return Promise.resolve(answers.shift() ?? '');
    },
  };
  return { io, lines, questions };
}

describe('seed 000 §5 examples, translated to TypeScript', () => {
  it('5.1 plans a comparison document through the (scripted) LLM and runs its five steps in order', async () => {
    const { io, lines } = scriptedIO();
    const result = await basic.main(io);

    expect(result.success).toBe(true);
    expect(result.plan.steps.map((s) => s.id)).toEqual(['search', 'read_1', 'read_2', 'read_3', 'write']);
    expect(lines.slice(0, 6)).toEqual([
      'Generated Plan:',
      '  search: Search for the most popular Python web frameworks',
      '  read_1: Read about framework #1',
      '  read_2: Read about framework #2',
      '  read_3: Read about framework #3',
      '  write: Write the comparison document',
    ]);
    const doc = basic.written.get('comparison.md') ?? '';
    for (const name of ['Django', 'Flask', 'FastAPI']) expect(doc).toContain(name);
    // Sequential: each step started after the one before it finished.
    const started = result.events
      .filter((e) => e.event_type === 'StepScheduled')
      .map((e) => e.references.step_id);
    expect(started).toEqual(['search', 'read_1', 'read_2', 'read_3', 'write']);
    expect(result.tokenUsage.totalTokens).toBe(600); // what the scripted model reported for planning
  });

  it('5.2 shows the plan, asks, and runs it when the answer is "y"', async () => {
    const before = approval.outbox.length;
    const { io, lines, questions } = scriptedIO('y');
    const result = await approval.main(io);

    expect(questions).toEqual(['Approve? (y/n): ']);
    expect(lines.slice(0, 3)).toEqual([
      'Proposed plan:',
      '  - Find every customer on the pro plan',
      '  - Email each of them a renewal reminder',
    ]);
    expect(result.success).toBe(true);
    expect(approval.outbox.length - before).toBe(2);
    expect(result.events.map((e) => e.event_type)).toContain('ApprovalGranted');
  });

  it('5.2 runs nothing when the answer is "n": the result says the plan was rejected', async () => {
    const before = approval.outbox.length;
    const { io, lines } = scriptedIO('n');
    const result = await approval.main(io);

    expect(result.success).toBe(false);
    expect(result.status).toBe('cancelled');
    expect(result.error?.code).toBe('plan_rejected');
    expect(approval.outbox.length).toBe(before);
    expect(result.events.some((e) => e.event_type === 'ToolInvoked')).toBe(false);
    expect(lines.at(-1)).toMatch(/^Not run \(cancelled: The plan was not approved/);
  });

  it('5.3 scans ten logs at most five at a time and finishes the other nine when one fails', async () => {
    const { io, lines } = scriptedIO();
    const result = await parallel.main(io);

    expect(parallel.concurrency.max).toBe(5);
    const statuses = Object.values(result.stepResults).map((r) => r.status);
    expect(statuses.filter((s) => s === 'completed')).toHaveLength(9);
    expect(result.stepResults.scan_7).toMatchObject({ status: 'failed', error: { code: 'not_found' } });
    expect(result.success).toBe(false); // one step failed; continueOnFailure kept the rest going
    expect(lines.at(-1)).toBe('9 of 10 files analyzed, at most 5 at once (maxParallel 5)');
  });
});

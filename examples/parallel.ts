/**
 * Seed 000 §5.3, "Parallel Execution", in TypeScript: ten independent log scans, at most five at a
 * time, and a missing file does not stop the others (`continueOnFailure`). Plans come from a
 * rule-based planner (no LLM).
 *
 *   node_modules/.bin/node examples/run.mjs parallel
 */
import { z } from 'zod';
import {
  Agent,
  defineTool,
  PlanningPattern,
  randomIds,
  RuleBasedPlanner,
  systemClock,
  ToolError,
  type PlanExecutionResult,
} from '../src/index';
import { consoleIO, type ExampleIO } from './support/io';

const FILES = Array.from({ length: 10 }, (_, i) => `app-${i + 1}.log`);

/** The logs; app-7.log is missing, to show a failure that does not block the rest. */
const LOGS = new Map(
  FILES.filter((f) => f !== 'app-7.log').map((f, i) => [
    f,
    Array.from({ length: 40 }, (_, line) =>
      line % (i + 3) === 0 ? `ERROR line ${line}` : `INFO line ${line}`,
    ),
  ]),
);

/** How many scans ran at once, at most. */
export const concurrency = { now: 0, max: 0 };

export const scanLog = defineTool({
  name: 'scan_log',
  description: 'Counts the ERROR lines of a log file',
  version: '1',
  input: z.object({ file: z.string() }),
  output: z.object({ file: z.string(), errors: z.number(), first: z.string().nullable() }),
  idempotent: true,
  deterministic: true,
  run: async ({ file }, ctx) => {
    concurrency.now += 1;
    concurrency.max = Math.max(concurrency.max, concurrency.now);
    try {
      // Reading takes a moment, so scans overlap.
      await new Promise((resolve) => setTimeout(resolve, 20));
      ctx.signal.throwIfAborted();
      const lines = LOGS.get(file);
      if (!lines) throw new ToolError('not_found', `No log file ${file}`, { retryable: false });
      const errors = lines.filter((l) => l.startsWith('ERROR'));
      return { file, errors: errors.length, first: errors[0] ?? null };
    } finally {
      concurrency.now -= 1;
    }
  },
});

const planner = new RuleBasedPlanner({
  clock: systemClock,
  ids: randomIds,
  rules: [
    {
      id: 'scan-logs',
      match: (state) => /log files/i.test(state.goal),
      toPlanStep: () =>
        FILES.map((file, i) => ({
          id: `scan_${i + 1}`,
          description: `Scan ${file} for errors`,
          action: 'scan_log',
          parameters: { file },
          dependencies: [],
        })),
    },
  ],
});

export async function main(io: ExampleIO = consoleIO()): Promise<PlanExecutionResult> {
  const pattern = new PlanningPattern({
    executionMode: 'parallel',
    maxParallel: 5,
    continueOnFailure: true, // Don't block on individual failures
  });

  const agent = new Agent({ pattern, tools: [scanLog], planner });

  // The agent will execute independent steps concurrently
  const result = await agent.run('Analyze these 10 log files for errors');

  for (const r of Object.values(result.stepResults)) {
    const out = r.output as { file: string; errors: number } | null;
    io.log(
      r.success && out
        ? `  ${out.file}: ${out.errors} error(s)`
        : `  ${r.stepId}: ${r.status} — ${r.error?.message}`,
    );
  }
  const done = Object.values(result.stepResults).filter((r) => r.success).length;
  io.log(`${done} of ${FILES.length} files analyzed, at most ${concurrency.max} at once (maxParallel 5)`);
  return result;
}

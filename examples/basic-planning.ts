/**
 * Seed 000 §5.1, "Basic Planning Agent", in TypeScript: a research assistant with three tools plans a
 * comparison document and executes the plan in sequence. Planning goes to an OpenAI-compatible
 * endpoint — scripted here, so the example runs offline; point `llm` at a real one to plan for real.
 *
 *   node_modules/.bin/node examples/run.mjs basic-planning
 */
import { z } from 'zod';
import { Agent, defineTool, PlanningPattern, ToolError, type PlanExecutionResult } from '../src/index';
import { consoleIO, type ExampleIO } from './support/io';
import { scriptedLlm } from './support/scripted-llm';

/** A tiny web: what `web_search` finds and `read_file` reads. */
const PAGES: Record<string, string> = {
  'web/django.md': 'Django: batteries included — ORM, admin, auth. Best for large, data-driven sites.',
  'web/flask.md': 'Flask: a micro-framework. Minimal core, extensions for the rest. Best for small services.',
  'web/fastapi.md': 'FastAPI: async, type hints drive validation and OpenAPI docs. Best for APIs.',
};

/** What `write_file` wrote, by path. */
export const written = new Map<string, string>();

export const webSearch = defineTool({
  name: 'web_search',
  description: 'Searches the web; returns the top results with a path to read each one',
  version: '1',
  input: z.object({ query: z.string().min(1), limit: z.number().int().min(1).max(10).default(3) }),
  output: z.object({ results: z.array(z.object({ title: z.string(), path: z.string() })) }),
  idempotent: true,
  deterministic: true,
  run: ({ limit }) =>
    Promise.resolve({
      results: Object.keys(PAGES)
        .slice(0, limit)
        .map((path) => ({ title: PAGES[path]!.split(':')[0]!, path })),
    }),
});

export const readFile = defineTool({
  name: 'read_file',
  description: 'Reads a file',
  version: '1',
  input: z.object({ path: z.string() }),
  output: z.object({ path: z.string(), text: z.string() }),
  idempotent: true,
  deterministic: true,
  run: ({ path }) => {
    const text = PAGES[path];
    if (text === undefined) {
      return Promise.reject(new ToolError('not_found', `No file at ${path}`, { retryable: false }));
    }
    return Promise.resolve({ path, text });
  },
});

export const writeFile = defineTool({
  name: 'write_file',
  description: 'Writes a file',
  version: '1',
  input: z.object({ path: z.string(), content: z.string() }),
  output: z.object({ path: z.string(), bytes: z.number() }),
  idempotent: true,
  deterministic: false,
  run: ({ path, content }) => {
    written.set(path, content);
    return Promise.resolve({ path, bytes: content.length });
  },
});

/** What the scripted model answers: a §2 plan, the way a real model would write it. */
const PLAN = {
  steps: [
    {
      id: 'search',
      description: 'Search for the most popular Python web frameworks',
      action: 'web_search',
      parameters: { query: 'top Python web frameworks', limit: 3 },
      dependencies: [],
    },
    ...[0, 1, 2].map((i) => ({
      id: `read_${i + 1}`,
      description: `Read about framework #${i + 1}`,
      action: 'read_file',
      parameters: { path: `{{ steps.search.output.results[${i}].path }}` },
      dependencies: ['search'],
    })),
    {
      id: 'write',
      description: 'Write the comparison document',
      action: 'write_file',
      parameters: {
        path: 'comparison.md',
        content:
          '# Python web frameworks\n\n- {{ steps.read_1.output.text }}\n- {{ steps.read_2.output.text }}\n- {{ steps.read_3.output.text }}\n',
      },
      dependencies: ['read_1', 'read_2', 'read_3'],
    },
  ],
};

export async function main(io: ExampleIO = consoleIO()): Promise<PlanExecutionResult> {
  const pattern = new PlanningPattern({
    maxSteps: 15,
    executionMode: 'sequential',
    allowRevision: true,
  });

  const agent = new Agent({
    pattern,
    tools: [webSearch, readFile, writeFile],
    systemPrompt: 'You are a research assistant.',
    llm: { baseURL: 'https://llm.example/v1', model: 'scripted-planner', fetch: scriptedLlm([PLAN]).fetch },
  });

  const result = await agent.run('Research the top 3 Python web frameworks and create a comparison document');

  // Inspect the plan that was generated
  io.log('Generated Plan:');
  for (const step of result.plan.steps) io.log(`  ${step.id}: ${step.description}`);

  io.log(
    `\n${result.success ? 'Completed' : `Ended ${result.status}`} in ${result.executionTime.toFixed(2)} s`,
  );
  io.log(`comparison.md:\n${written.get('comparison.md') ?? '(not written)'}`);
  return result;
}

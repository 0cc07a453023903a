/**
 * The README's "Library use" example as a plain Node program, type-checked (`npm run typecheck`)
 * with Node's types only — no Workers types, as a project using the library outside a Worker has:
 * nothing the `edgeplan` entry point exports may need them. It is compiled, not run.
 */
import { z } from 'zod';
import { Agent, defineTool, PlanningPattern } from '../../src/index';

const search = defineTool({
  name: 'web_search',
  description: 'Searches the web',
  version: '1',
  input: z.object({ query: z.string() }),
  idempotent: true,
  deterministic: true,
  run: ({ query }) => Promise.resolve({ results: [`about ${query}`] }),
}); // (the README writes run as an async arrow: the same type)

const pattern = new PlanningPattern({ maxSteps: 15, executionMode: 'parallel', maxParallel: 5 });
const agent = new Agent({
  pattern,
  tools: [search],
  systemPrompt: 'You are a research assistant.',
  llm: { apiKey: process.env.OPENAI_API_KEY, model: 'gpt-4o-mini' }, // or baseURL for Ollama, vLLM, Workers AI…
  callbacks: { onStepComplete: (step, r) => console.log(step.id, r.status) },
});
const result = await agent.run('Research the top 3 Python web frameworks');
console.log(result.success, result.finalOutput, result.tokenUsage);

/**
 * `npm run eval` (through run.ts): reads the endpoint from the environment, runs the suite for each
 * model, prints the report, and writes the results as JSON on request. A measurement, not a test:
 * exit 0 whenever the suite ran, whatever the numbers; 2 when there is nothing to measure against
 * or the arguments are wrong. `--serve-fake-llm` starts the scripted endpoint instead.
 */
import { parseModelList } from '../../src/planner/pipeline';
import { DEFAULT_MODEL } from '../../src/executor/tools/openai-client';
import { serveFakeLlm } from './fake-llm';
import { GOALS } from './goals';
import { fs } from './node-api';
import { formatReport } from './report';
import { TARGETS } from './summary';
import type { GoalResult } from './summary';
import { runSuite } from './suite';

export const USAGE = `Usage: npm run eval [-- --json <file>] [-- --goals <id,id,…>]
       npm run eval -- --serve-fake-llm [port]

Environment:
  OPENAI_API_KEY    API key (OpenAI, or any endpoint that needs one)
  OPENAI_BASE_URL   an OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1 (default: OpenAI)
  PLANNER_MODEL     the model to measure (default ${DEFAULT_MODEL})
  EVAL_MODELS       comma-separated models to compare (instead of PLANNER_MODEL)
Goals: ${GOALS.map((g) => g.id).join(', ')}`;

export const NO_ENDPOINT =
  'npm run eval needs an OpenAI-compatible endpoint to measure. Set OPENAI_API_KEY (OpenAI) and/or ' +
  'OPENAI_BASE_URL (any OpenAI-compatible server: Ollama, vLLM, Workers AI, AI Gateway), then ' +
  `PLANNER_MODEL (default ${DEFAULT_MODEL}) or EVAL_MODELS=a,b,c to compare several models.`;

type Io = { out(text: string): void; err(text: string): void };
type Args = { json?: string; goals?: string[]; serve?: number; help?: boolean };

/**
 * Runs the CLI. Resolves to the exit code, or `'serving'` while the fake endpoint runs.
 * @example process.exitCode = await main(process.argv.slice(2), process.env, io)
 */
export async function main(
  argv: readonly string[],
  env: Record<string, string | undefined>,
  io: Io,
): Promise<number | 'serving'> {
  const args = parseArgs(argv);
  if (typeof args === 'string') {
    io.err(`${args}\n\n${USAGE}\n`);
    return 2;
  }
  if (args.help) {
    io.out(`Measures how well models plan for edgeplan (seed 000 §6 success criteria).\n\n${USAGE}\n`);
    return 0;
  }
  if (args.serve !== undefined) {
    const server = await serveFakeLlm(args.serve);
    io.out(
      `Fake OpenAI-compatible endpoint on ${server.url} (models: fake-good, fake-flawed). Try:\n` +
        `  OPENAI_BASE_URL=${server.url} EVAL_MODELS=fake-good,fake-flawed npm run eval\n`,
    );
    return 'serving';
  }
  const endpoint = {
    OPENAI_API_KEY: nonEmpty(env.OPENAI_API_KEY),
    OPENAI_BASE_URL: nonEmpty(env.OPENAI_BASE_URL),
  };
  if (!endpoint.OPENAI_API_KEY && !endpoint.OPENAI_BASE_URL) {
    io.err(`${NO_ENDPOINT}\n`);
    return 2;
  }
  const models = parseModelList(env.EVAL_MODELS);
  if (models.length === 0) models.push(nonEmpty(env.PLANNER_MODEL) ?? DEFAULT_MODEL);
  const goals = args.goals ? GOALS.filter((g) => args.goals!.includes(g.id)) : GOALS;
  const where = endpoint.OPENAI_BASE_URL ?? 'https://api.openai.com/v1';

  io.err(
    `Evaluating ${models.join(', ')} on ${goals.length} goal${goals.length === 1 ? '' : 's'} against ${where}\n`,
  );
  const results = await runSuite({
    env: endpoint,
    models,
    goals,
    onGoal: (model, g) => io.err(`  ${model}  ${progress(g)}\n`),
  });
  io.out(formatReport(results, { endpoint: where }));
  if (args.json !== undefined) {
    const doc = {
      generated_at: new Date().toISOString(),
      endpoint: where,
      targets: TARGETS,
      models: results,
    };
    fs().writeFileSync(args.json, `${JSON.stringify(doc, null, 2)}\n`);
    io.err(`Results written to ${args.json}\n`);
  }
  return 0;
}

function parseArgs(argv: readonly string[]): Args | string {
  const args: Args = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = argv[i + 1];
    if (a === '--json') {
      if (value === undefined || value.startsWith('--')) return '--json needs a file name';
      args.json = value;
      i++;
    } else if (a === '--goals') {
      if (value === undefined) return '--goals needs a comma-separated list of goal ids';
      const ids = parseModelList(value);
      const unknown = ids.filter((id) => !GOALS.some((g) => g.id === id));
      if (unknown.length > 0) return `Unknown goal${unknown.length === 1 ? '' : 's'}: ${unknown.join(', ')}`;
      args.goals = ids;
      i++;
    } else if (a === '--serve-fake-llm') {
      const port = value !== undefined && /^\d+$/.test(value) ? Number(value) : 0;
      if (port === Number(value)) i++;
      args.serve = port;
    } else if (a === '--help' || a === '-h') {
      args.help = true;
    } else {
      return `Unknown argument "${a}"`;
    }
  }
  return args;
}

/** One short line per finished goal, on stderr, so a long run shows it is alive. */
function progress(g: GoalResult): string {
  const plan = g.planning.valid ? (g.planning.valid_first ? 'valid' : 'repaired') : 'invalid';
  const run = g.execution?.status ?? '-';
  const rev = g.revision ? (g.revision.effective ? 'revised' : `revision ${g.revision.status}`) : '-';
  return `${g.goal_id}: ${plan}, ${run}, ${rev} (${Math.round(g.planning.latency_ms)} ms)`;
}

function nonEmpty(v: string | undefined): string | undefined {
  return v !== undefined && v.trim() !== '' ? v.trim() : undefined;
}

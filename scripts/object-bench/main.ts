/**
 * The run object's own CPU, without the runtime around it: PlanRun's code on Node's SQLite
 * (node-storage.ts), driven as the Worker drives it — `create` with a validated plan, then its inline
 * attempts until the run completes. Workloads: a new object per run of 5 parallel instant steps (the
 * burst's run), a chain of 200 instant steps, 10 layers × 20 instant steps. Printed: CPU per run (and
 * per step or layer), and the SQL statements an object compiled. Built and run by
 * scripts/bench-object.mjs.
 */
import { PlanRun as BasePlanRun } from '../../src/durable/plan-run';
import { toolSource } from '../../src/durable/tools';
import { parseRunConfig, validationLimits } from '../../src/plan/config';
import type { Plan } from '../../src/plan/model';
import { validatePlan } from '../../src/plan/validate';
import { nodeObjectState } from './node-storage';
import { unlessNewerFormat } from '../../src/durable/newer-format-refusal';

type NodeProcess = {
  argv: string[];
  cpuUsage(previous?: { user: number; system: number }): { user: number; system: number };
};
const proc = process as unknown as NodeProcess;
const reps = Number(proc.argv.find((a) => a.startsWith('--reps='))?.slice(7) ?? 100);
const only = proc.argv.find((a) => a.startsWith('--only='))?.slice(7);

const env = {
  DEMO_TOOLS: 'true',
  HTTP_ALLOWLIST: '',
  OPENAI_BASE_URL: '',
  PLANNER_MODEL: 'bench',
  PLANNER_FALLBACK_MODELS: '',
  DB: {
    prepare: (query: string) => ({ bind: (...params: unknown[]) => ({ query, params }) }),
    batch: (statements: unknown[]) => Promise.resolve(statements.map(() => ({ results: [] }))),
  },
  STEPS: { send: () => Promise.resolve(), sendBatch: () => Promise.resolve() },
  KV: { get: () => Promise.resolve(null), put: () => Promise.resolve() },
} as unknown as Env;

// One registry for every object, as the Worker's toolSource gives them (one per bindings object).
const tools = toolSource();
class PlanRun extends BasePlanRun {
  protected override createToolRegistry() {
    return tools(this.env);
  }
}

type Step = { id: string; action: string; parameters: Record<string, unknown>; dependencies: string[] };
const instantSleep = (id: string, dependencies: string[]): Step => ({
  id,
  action: 'demo.sleep',
  parameters: { ms: 0 },
  dependencies,
});

const WORKLOADS = [
  {
    name: 'run: a new object, 5 parallel instant steps',
    unit: (ms: number) => `${ms.toFixed(2)} ms a run`,
    steps: () => Array.from({ length: 5 }, (_, i) => instantSleep(`s${i}`, [])),
    config: { execution_mode: 'parallel', max_parallel: 5 },
  },
  {
    name: 'chain of 200 instant steps',
    unit: (ms: number) => `${((ms / 200) * 1000).toFixed(0)} µs a step`,
    steps: () =>
      Array.from({ length: 200 }, (_, i) => ({
        id: `c${i}`,
        action: 'demo.echo',
        parameters: { i },
        dependencies: i ? [`c${i - 1}`] : [],
      })),
    config: { execution_mode: 'sequential', max_steps: 10_000 },
  },
  {
    name: 'wide 10 layers × 20 instant steps',
    unit: (ms: number) => `${(ms / 10).toFixed(2)} ms a layer`,
    steps: () =>
      Array.from({ length: 200 }, (_, k) => {
        const l = Math.floor(k / 20);
        const deps = l ? Array.from({ length: 20 }, (_, i) => `s${l - 1}_${i}`) : [];
        return instantSleep(`s${l}_${k % 20}`, deps);
      }),
    config: { execution_mode: 'parallel', max_parallel: 20, max_steps: 10_000 },
  },
];

const tick = () => new Promise((r) => setTimeout(r, 0));

/** One run in a new object: CPU ms from `create` to `completed`, and the statements it compiled. */
async function runOnce(plan: Plan, config: ReturnType<typeof parseRunConfig>, n: number) {
  const { state, compiled, close } = nodeObjectState();
  const run = new PlanRun(state, env);
  const c0 = proc.cpuUsage();
  const created = unlessNewerFormat(
    await run.create({
      run_id: `run_bench${n}`,
      goal: plan.goal,
      plan_json: JSON.stringify(plan),
      config,
      input: {},
      estimates: null,
      origin: 'http://bench',
    }),
  );
  if (!created.ok) throw new Error(created.error.message);
  for (;;) {
    const status = unlessNewerFormat(run.getStatus({}))?.run_status;
    if (status === 'completed') break;
    if (status !== 'running') throw new Error(`run ${status}`);
    await tick();
  }
  const c = proc.cpuUsage(c0);
  const out = { ms: (c.user + c.system) / 1000, compiled: compiled() };
  close();
  return out;
}

console.log(`\nthe run object's own CPU (PlanRun on Node's SQLite, no runtime around it; median of ${reps})`);
let n = 0;
for (const w of WORKLOADS) {
  if (only && !w.name.startsWith(only)) continue;
  const config = parseRunConfig(w.config);
  const v = validatePlan(
    { goal: 'bench', steps: w.steps() },
    {
      tools: tools(env),
      clock: { now: () => new Date() },
      ids: { id: (p) => `${p}_bench`, uuid: () => crypto.randomUUID() },
      config: validationLimits(config, false),
    },
  );
  if (!v.valid || !v.plan) throw new Error(`${w.name}: ${JSON.stringify(v.errors)}`);
  for (let i = 0; i < reps; i++) await runOnce(v.plan, config, n++); // warm (JIT)
  const samples = [];
  for (let i = 0; i < reps; i++) samples.push(await runOnce(v.plan, config, n++));
  const ms = samples.map((s) => s.ms).sort((a, b) => a - b)[Math.floor(reps / 2)]!;
  console.log(
    `  ${w.name.padEnd(50)} ${w.unit(ms).padStart(16)}  (${ms.toFixed(2)} ms a run; ${samples[0]!.compiled} statements compiled)`,
  );
}

/**
 * Validation benchmark: wall time of `validatePlan` over 1k/10k/100k-step plans, as a chain and as
 * a wide DAG, every step carrying references (step outputs, state paths, typed against the tool's
 * output schema). Plans go through JSON first, as they arrive over HTTP.
 * Run: `node --experimental-strip-types scripts/bench-validate.ts` (node 24; `npx node …` uses the
 * project's own). Targets (issue 2): 10k < 50 ms, 100k < 500 ms; we aim for medians within 60% of
 * them so a busy machine does not break them. Each size is warmed up first (JIT, zod's compiled
 * parsers, schema caches), then timed at least 7 times: the table gives the median and the 90th
 * percentile, CPU time beside them (when wall is well above CPU, the process was waiting for a core,
 * not working) and the load average, which on a shared machine moves these numbers more than most
 * code changes do.
 */
import type * as RegistryModule from '../src/executor/registry';
import type * as ValidateModule from '../src/plan/validate';

type ResolveHook = (
  specifier: string,
  context: unknown,
  next: (specifier: string, context: unknown) => unknown,
) => unknown;
type NodeModuleApi = { registerHooks(hooks: { resolve: ResolveHook }): void };
type NodeProcess = {
  getBuiltinModule(id: string): unknown;
  argv: string[];
  cpuUsage(previous?: { user: number; system: number }): { user: number; system: number };
};
type NodeOs = { loadavg(): number[]; cpus(): unknown[] };

// The sources import each other without extensions (bundler resolution); teach Node to add `.ts`.
const nodeProcess = process as unknown as NodeProcess;
const nodeModule = nodeProcess.getBuiltinModule('node:module') as NodeModuleApi;
nodeModule.registerHooks({
  resolve(specifier, context, next) {
    try {
      return next(specifier, context);
    } catch (err) {
      if (specifier.startsWith('.') && !specifier.endsWith('.ts')) return next(`${specifier}.ts`, context);
      throw err;
    }
  },
});

const here = (import.meta as unknown as { url: string }).url;
const src = (path: string): string => new URL(`../src/${path}.ts`, here).href;
const { validatePlan } = (await import(src('plan/validate'))) as typeof ValidateModule;
const { ToolRegistry, defineTool } = (await import(src('executor/registry'))) as typeof RegistryModule;
const { z } = await import('zod');

const tools = new ToolRegistry([
  defineTool({
    name: 'bench.fetch',
    description: 'Fetches a page',
    version: '1',
    input: z.object({ url: z.string(), note: z.string().optional(), data: z.unknown().optional() }),
    output: z.object({ body: z.string(), items: z.array(z.object({ url: z.string() })) }),
    idempotent: true,
    deterministic: true,
    estimated_latency_ms: 200,
    estimated_tokens: 10,
    run: () => Promise.resolve({ body: '', items: [] }),
  }),
]);

type RawStep = Record<string, unknown>;

function step(id: string, url: string, note: string, deps: string[]): RawStep {
  return {
    id,
    description: `step ${id}`,
    action: 'bench.fetch',
    parameters: { url, note },
    dependencies: deps,
    output_path: `state.r.${id}`,
  };
}

/** s0 ← s1 ← … : each reads the previous step's output and its state path. */
function chain(n: number): unknown {
  const steps: RawStep[] = [step('s0', 'https://example.com', 'start', [])];
  for (let i = 1; i < n; i++) {
    steps.push(
      step(`s${i}`, `{{ steps.s${i - 1}.output.items[0].url }}`, `after {{ state.r.s${i - 1} }}`, []),
    );
  }
  return { goal: 'chain', steps };
}

/** Layers 100 wide; each step reads two steps of the layer before. */
function wide(n: number): unknown {
  const width = 100;
  const steps: RawStep[] = [];
  for (let i = 0; i < n; i++) {
    const layer = Math.floor(i / width);
    if (layer === 0) {
      steps.push(step(`w${i}`, 'https://example.com', 'root', []));
      continue;
    }
    const a = `w${(layer - 1) * width + (i % width)}`;
    const b = `w${(layer - 1) * width + ((i + 1) % width)}`;
    steps.push(step(`w${i}`, `{{ steps.${a}.output.body }}`, `and {{ state.r.${b} }}`, [a]));
  }
  return { goal: 'wide', steps };
}

let counter = 0;
const opts = {
  tools,
  config: { max_steps: 1_000_000 },
  // As a caller's plan is validated (a model's is not this size): unknown keys refused.
  refuseUnknownKeys: true,
  clock: { now: () => new Date(0) },
  ids: { id: (prefix: string) => `${prefix}_${++counter}`, uuid: () => `u${++counter}` },
};

/** The value below which `q` of the sorted sample lies (nearest rank). */
function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
}

const TARGET_MS: Record<number, number> = { 10_000: 50, 100_000: 500 };
const AIM = 0.6;

const os = nodeProcess.getBuiltinModule('node:os') as NodeOs;
const load = (): string => os.loadavg()[0]!.toFixed(2);
console.log(
  `node ${(process as unknown as { version: string }).version}, ${os.cpus().length} cpus, load ${load()}`,
);

const rows: string[][] = [['shape', 'steps', 'runs', 'median', 'p90', 'cpu', 'target', 'ratio', 'load']];
let over = 0;
for (const [name, make] of [
  ['chain', chain],
  ['wide', wide],
] as const) {
  for (const n of [1_000, 10_000, 100_000]) {
    const plan: unknown = JSON.parse(JSON.stringify(make(n)));
    const [warmups, runs] = n >= 100_000 ? [2, 11] : [5, 21];
    for (let w = 0; w < warmups; w++) validatePlan(plan, opts);
    const times: number[] = [];
    const cpu: number[] = [];
    for (let r = 0; r < runs; r++) {
      const c0 = nodeProcess.cpuUsage();
      const t0 = performance.now();
      const result = validatePlan(plan, opts);
      times.push(performance.now() - t0);
      const c = nodeProcess.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1000);
      if (!result.valid) throw new Error(`${name} ${n}: ${JSON.stringify(result.errors.slice(0, 3))}`);
    }
    const median = quantile(times, 0.5);
    const target = TARGET_MS[n];
    if (target !== undefined && median > AIM * target) over++;
    rows.push([
      name,
      String(n),
      String(runs),
      median.toFixed(1),
      quantile(times, 0.9).toFixed(1),
      quantile(cpu, 0.5).toFixed(1),
      target === undefined ? '-' : `< ${target}`,
      target === undefined ? '-' : (median / target).toFixed(2),
      load(),
    ]);
  }
}

const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
for (const r of rows) console.log(r.map((cell, c) => cell.padStart(widths[c]!)).join('  '));
console.log(
  `times in ms; ratio = median / target, aim <= ${AIM}` +
    (over === 0 ? '' : ` — ${over} row(s) above it (check the load column before blaming the code)`),
);

/**
 * The tool registry: what a plan step's `action` can name. Pure — tools receive everything they
 * need (bindings, fetch, the abort signal) through {@link ToolContext}.
 */
import { z } from 'zod';

/** What a tool gets besides its input. */
export type ToolContext = {
  runId: string;
  stepId: string;
  attempt: number;
  /**
   * `<run>:<step>` (plus `:v<version>` once a revision replaced the step): the same for every attempt
   * of the step's effect, so the API it calls can deduplicate a retry (SPEC §4); see `attempt`.
   */
  idempotencyKey: string;
  /** Aborted when the step's timeout passes or the run is cancelled. */
  signal: AbortSignal;
  /** Worker bindings and variables; `{}` in plain Node. */
  env: Record<string, unknown>;
  /** The fetch outbound calls use (tests inject a scripted endpoint here); defaults to global fetch. */
  fetch?: typeof fetch;
  /**
   * The Worker variables this step's TEA settings may read: a child workflow it starts
   * (`plan.execute`, `agent.dispatch`) may read no others. Empty outside a TEA workflow.
   */
  settingsEnv?: readonly string[];
  /** Tokens spent by this call (llm.call reports its `usage`). */
  reportTokens?: (tokens: { prompt: number; completion: number }) => void;
};

export type ToolDefinition<I = unknown, O = unknown> = {
  name: string;
  description: string;
  input: z.ZodType<I>;
  /** When declared, references to this tool's output are type-checked before a run starts. */
  output?: z.ZodType<O>;
  version: string;
  /** Safe to run twice with the same input (no side effect, or one keyed by the idempotency key). */
  idempotent: boolean;
  /** Same input → same output. */
  deterministic: boolean;
  /**
   * Serve repeat calls from the step-result cache (KV). Only for deterministic tools, and only worth it
   * for slow or costly ones: a cache read costs more than a cheap tool.
   */
  cacheable?: boolean;
  /**
   * Time limit for an attempt when its step sets none, for tools that outlast the run's
   * `step_timeout` by nature (a child run, a person's answer).
   */
  timeout_ms?: number;
  /**
   * Where a parallel run carries out this tool's steps (config `placement: "auto"`): `queue` (the
   * default) — on a queue consumer, an invocation of its own with its own CPU, memory and connections;
   * `object` — in the run's Durable Object itself, with no queue hop either way: for tools that only
   * wait (a timer, a person) or do microseconds of work. A tool that computes or opens connections
   * belongs on the queue (an object has one thread, and an invocation at most six open connections).
   */
  placement?: 'object' | 'queue';
  /**
   * The tool stores its parameters or starts a run with them (`plan.execute`, `agent.dispatch`: the
   * child's goal, plan and settings; a planning action's goal or plan, which its output and the
   * planning provenance keep): they reach it with `${VAR}` as written, not expanded — a child expands
   * them as its own tools are called, for the names it may read (`ToolContext.settingsEnv`), so no
   * variable's value is written into a plan, an output or the log. `true`: every parameter; a list:
   * those top-level parameters (the rest — a planning action's `model` — get their values).
   */
  passesSettingsOn?: true | readonly string[];
  /** Typical latency for estimates when there is no history. */
  estimated_latency_ms?: number;
  /**
   * The latency a call with these parameters (as planned: references unresolved) is expected to take,
   * when the parameters say (a sleep's `ms`); undefined falls back to history and the typical latency.
   */
  estimate_latency_ms?: (parameters: Record<string, unknown>) => number | undefined;
  /** Typical token cost for estimates. */
  estimated_tokens?: number;
  run(input: I, ctx: ToolContext): Promise<O>;
};

/** Any tool, whatever its input and output types. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a registry holds tools of every type
export type AnyTool = ToolDefinition<any, any>;

/**
 * Declares a tool with its types inferred from the zod schemas.
 * @example
 * const echo = defineTool({ name: 'demo.echo', description: 'Returns its parameters', version: '1',
 *   input: z.record(z.string(), z.unknown()), idempotent: true, deterministic: true,
 *   run: async (input) => input });
 */
export function defineTool<I, O>(def: ToolDefinition<I, O>): ToolDefinition<I, O> {
  return def;
}

/** JSON description of a tool, as `GET /v1/tools` and the planner prompt show it. */
export type ToolDescription = {
  name: string;
  description: string;
  version: string;
  idempotent: boolean;
  deterministic: boolean;
  input_schema: unknown;
  output_schema?: unknown;
};

export class ToolRegistry {
  readonly #tools = new Map<string, AnyTool>();
  /** Why tools under a name prefix may be missing (an MCP server that could not be listed). */
  readonly #unavailable = new Map<string, string>();
  /** Why one tool is missing (a tool an MCP server lists that cannot be used). */
  readonly #unavailableTools = new Map<string, string>();

  constructor(tools: Iterable<AnyTool> = []) {
    for (const t of tools) this.register(t);
  }

  /** Adds a tool; a second tool with the same name replaces the first. */
  register(tool: AnyTool): this {
    this.#tools.set(tool.name, tool);
    return this;
  }

  get(name: string): AnyTool | undefined {
    return this.#tools.get(name);
  }

  has(name: string): boolean {
    return this.#tools.has(name);
  }

  /** Records why tools named `prefix…` may be missing, for the finding that names one of them. */
  markUnavailable(prefix: string, reason: string): this {
    this.#unavailable.set(prefix, reason);
    return this;
  }

  /** Records why the tool named exactly `name` is missing, for the finding that names it. */
  markToolUnavailable(name: string, reason: string): this {
    this.#unavailableTools.set(name, reason);
    return this;
  }

  /** Why `name` may be missing, when its source said so (a reason for the name itself first). */
  unavailableReason(name: string): string | undefined {
    const own = this.#unavailableTools.get(name);
    if (own !== undefined) return own;
    for (const [prefix, reason] of this.#unavailable) if (name.startsWith(prefix)) return reason;
    return undefined;
  }

  names(): string[] {
    return [...this.#tools.keys()].sort();
  }

  list(): AnyTool[] {
    return this.names().map((n) => this.#tools.get(n)!);
  }

  describe(): ToolDescription[] {
    return this.list().map(describeTool);
  }

  /**
   * A tool's input fields in declared order (undefined: no such tool, or its input is not an object),
   * so positional arguments can be named.
   * @example registry.inputFields('demo.sleep') // ['ms', 'value']
   */
  inputFields(name: string): readonly string[] | undefined {
    const input = this.#tools.get(name)?.input;
    return input instanceof z.ZodObject ? Object.keys(input.shape) : undefined;
  }
}

export function describeTool(tool: AnyTool): ToolDescription {
  const d: ToolDescription = {
    name: tool.name,
    description: tool.description,
    version: tool.version,
    idempotent: tool.idempotent,
    deterministic: tool.deterministic,
    input_schema: toJsonSchema(tool.input),
  };
  if (tool.output) d.output_schema = toJsonSchema(tool.output);
  return d;
}

/**
 * The input side, as a caller writes it — with `additionalProperties: false` on every `z.object`, which
 * zod leaves out there (a `z.object` strips unknown keys rather than refusing them) but edgeplan refuses
 * an unknown key for (src/plan/parameter-keys.ts): a model or client reading the listing is told the
 * same as validation will say.
 */
function toJsonSchema(schema: z.ZodType): unknown {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', override: closeObjects });
}

function closeObjects(ctx: {
  zodSchema: { _zod: { def: z.core.$ZodTypeDef } };
  jsonSchema: Record<string, unknown>;
}): void {
  const def = ctx.zodSchema._zod.def;
  if (def.type === 'object' && (def as z.core.$ZodObjectDef).catchall === undefined) {
    ctx.jsonSchema.additionalProperties ??= false;
  }
}

/**
 * `edgeplan/worker` (SPEC §8): a Worker of your own with your own tools. {@link createEdgeplan} composes
 * one tool registry — edgeplan's built-ins, the demo pack when `DEMO_TOOLS=true`, and yours — and
 * returns the Worker handler (HTTP, the `steps` queue consumer, the Cron Trigger's retention sweep) and
 * the Durable Object class, all reading that registry. Tools read secrets from the Worker's bindings through `ctx.env`, never from
 * the plan.
 */
import { PlanRun as BasePlanRun } from './durable/plan-run';
import { loadMcpTools } from './mcp/worker-tools';
import { consumeDeadLetters, isDeadLetterBatch } from './durable/dead-letter-consumer';
import { sweepRetention } from './durable/retention-sweep';
import { consumeSteps } from './durable/step-consumer';
import { toolSource } from './durable/tools';
import type { AnyTool, ToolRegistry } from './executor/registry';
import { createApp, type CreateAppOptions } from './http/app';

export { defineTool } from './executor/registry';
// A tool's own failure with a code, and whether a retry could help (`retryable: false`: no retries).
export { ToolError } from './errors';
export type { AnyTool, ToolContext, ToolDefinition } from './executor/registry';
export { DemoCounters } from './executor/tools/demo-counters';

/** What {@link createEdgeplan} takes: your tools, plus the HTTP app's options. */
export type EdgeplanOptions = Omit<CreateAppOptions, 'tools'> & {
  /** Tools added to edgeplan's; a name edgeplan already uses is refused. */
  tools?: readonly AnyTool[];
};

/** What {@link createEdgeplan} returns: export `default` and `PlanRun` from your Worker's main module. */
export type Edgeplan = {
  /** The Worker handler: the HTTP API, the `steps` queue consumer and the Cron Trigger. */
  default: {
    fetch: (request: Request, env: Env, ctx: ExecutionContext) => Response | Promise<Response>;
    /** Takes any batch: a message that is not a step message is acknowledged and logged. */
    queue: (batch: MessageBatch<unknown>, env: Env) => Promise<void>;
    /**
     * Any cron of wrangler.toml's `[triggers]`: with `RUN_RETENTION_DAYS` set, wakes a page of the runs
     * that ended longer ago so they delete themselves (src/durable/retention-sweep.ts); unset, nothing.
     */
    scheduled: (controller: ScheduledController, env: Env) => Promise<void>;
  };
  /** The run's Durable Object class, bound in wrangler.toml as `PlanRun` (binding `PLAN_RUN`). */
  PlanRun: typeof BasePlanRun;
  /** The registry these bindings get (for checks and tests). */
  tools: (env: Env) => ToolRegistry;
};

/**
 * Builds the Worker. Throws at startup when a tool's name is taken by edgeplan or given twice.
 * @example
 * const edgeplan = createEdgeplan({ tools: [greet] });
 * export class PlanRun extends edgeplan.PlanRun {} // a class: `wrangler types` names its type
 * export default edgeplan.default;
 */
export function createEdgeplan(options: EdgeplanOptions = {}): Edgeplan {
  const { tools: own = [], ...appOptions } = options;
  const tools = toolSource(own);
  const app = createApp({ ...appOptions, tools });

  /** The run object, reading the registry composed above. */
  class PlanRun extends BasePlanRun {
    /** One registry per bindings, rebuilt when a new MCP listing arrives (see toolSource). */
    protected override createToolRegistry(): ToolRegistry {
      return tools(this.env);
    }
  }

  return {
    default: {
      fetch: (request, env, ctx) => app.fetch(request, env, ctx),
      queue: async (batch, env) => {
        if (isDeadLetterBatch(batch)) return consumeDeadLetters(batch, env);
        await loadMcpTools(env);
        return consumeSteps(batch, env, tools(env));
      },
      scheduled: async (_controller, env) => {
        await sweepRetention(env);
      },
    },
    PlanRun,
    tools,
  };
}

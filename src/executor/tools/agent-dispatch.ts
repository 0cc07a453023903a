/**
 * `agent.dispatch` as both hosts declare it (SPEC §4): its input, version and time limit. How it
 * runs is the host's — a child Durable Object in the Worker (durable/runtime-tools.ts), a nested
 * LocalRunner in process — so each host passes its own `run`. A step with a sub-plan records the
 * same call (engine/child-run.ts).
 */
import { z } from 'zod';
import { CHILD_RUN_ACTION, CHILD_RUN_TIMEOUT_MS, CHILD_RUN_TOOL_VERSION } from '../../engine/child-run';
import { defineTool, type ToolContext, type ToolDefinition } from '../registry';

/** What `agent.dispatch` takes: a goal to plan or a plan, and the child's configuration and input. */
export const agentDispatchInput = z
  .object({
    goal: z.string().min(1).optional(),
    plan: z.unknown().optional(),
    config: z.record(z.string(), z.unknown()).optional(),
    input: z.unknown().optional(),
  })
  .refine((v) => v.goal !== undefined || v.plan !== undefined, 'give a "goal" or a "plan"');

export type AgentDispatchInput = z.infer<typeof agentDispatchInput>;

/**
 * The `agent.dispatch` tool, run by `run`.
 * @example registry.register(agentDispatchTool(async (req, ctx) => deferToChildRun(await startChild(req, ctx))));
 */
export function agentDispatchTool<O>(
  run: (input: AgentDispatchInput, ctx: ToolContext) => Promise<O>,
): ToolDefinition<AgentDispatchInput, O> {
  return defineTool({
    name: CHILD_RUN_ACTION,
    description:
      'Runs a goal (planned by the planner) or a plan as a child run — its own object in the Worker, a nested runner in process; its result rolls up to this step.',
    version: CHILD_RUN_TOOL_VERSION,
    input: agentDispatchInput,
    idempotent: true,
    deterministic: false,
    timeout_ms: CHILD_RUN_TIMEOUT_MS,
    // The child's goal and plan are stored (its row, PlanAuthored, D1): `${VAR}` reaches it as written,
    // and its own tools get the values for the names its step may read.
    passesSettingsOn: true,
    run,
  });
}

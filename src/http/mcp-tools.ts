/**
 * The tools edgeplan serves at `/mcp` (SPEC §8), each one route of the API: its arguments are the
 * route's body (plus `run_id` for a run's routes), and its result is the route's JSON answer.
 */
import { z } from '@hono/zod-openapi';
import { ApprovalDocSchema } from './routes/run-revisions';
import { PlanGoalRequestSchema } from './schemas/planning';
import { CancelSchema, CreateRunSchema } from './schemas/run';
import { ValidateRequestSchema } from './schemas/validation';

/** The API request a tool call becomes. */
export type ApiCall = { method: 'GET' | 'POST'; path: string; body?: unknown };

export type McpApiTool = {
  name: string;
  description: string;
  /** Documents the arguments (`tools/list`); the route itself validates them. */
  input: z.ZodType;
  /** The request for these arguments, or why there can be none. */
  call(args: Record<string, unknown>): ApiCall | { error: string };
};

const RunId = z.object({ run_id: z.string().min(1).openapi({ description: 'The run id (run_…)' }) });

/** `/v1/runs/<id><suffix>`, or an error when `run_id` is missing. */
function runPath(args: Record<string, unknown>, suffix: string): { path: string } | { error: string } {
  const id = args.run_id;
  if (typeof id !== 'string' || id === '') return { error: 'run_id is required: the id of the run (run_…)' };
  return { path: `/v1/runs/${encodeURIComponent(id)}${suffix}` };
}

/** The arguments without `run_id`: the body of a run's route. */
function bodyOf(args: Record<string, unknown>): Record<string, unknown> {
  const { run_id: _, ...body } = args;
  return body;
}

function onRun(args: Record<string, unknown>, method: ApiCall['method'], suffix: string, body?: unknown) {
  const at = runPath(args, suffix);
  return 'error' in at ? at : { method, path: at.path, ...(body === undefined ? {} : { body }) };
}

/**
 * The six tools, in `tools/list` order.
 * @example MCP_API_TOOLS.find((t) => t.name === 'get_run')!.call({ run_id: 'run_1' }); // GET /v1/runs/run_1
 */
export const MCP_API_TOOLS: readonly McpApiTool[] = [
  {
    name: 'plan_goal',
    description: 'Plan a goal without running it (POST /v1/plans): the validated plan and its estimates',
    input: PlanGoalRequestSchema,
    call: (args) => ({ method: 'POST', path: '/v1/plans', body: args }),
  },
  {
    name: 'validate_plan',
    description:
      'Validate a plan without running it (POST /v1/plans/validate): every finding and the estimates',
    input: ValidateRequestSchema,
    call: (args) => ({ method: 'POST', path: '/v1/plans/validate', body: args }),
  },
  {
    name: 'start_run',
    description: 'Start a run of a plan or a goal (POST /v1/runs): {run_id, status, links}',
    input: CreateRunSchema,
    call: (args) => ({ method: 'POST', path: '/v1/runs', body: args }),
  },
  {
    name: 'get_run',
    description: 'A run: status, plan, step statuses and results, counts, final_output (GET /v1/runs/:id)',
    input: RunId,
    call: (args) => onRun(args, 'GET', ''),
  },
  {
    name: 'approve_run',
    description: 'Approve, reject or modify the plan of a run awaiting approval (POST /v1/runs/:id/approval)',
    input: RunId.extend(ApprovalDocSchema.shape),
    call: (args) => onRun(args, 'POST', '/approval', bodyOf(args)),
  },
  {
    name: 'cancel_run',
    description: 'Cancel a run (POST /v1/runs/:id/cancel)',
    input: RunId.extend(CancelSchema.shape),
    call: (args) => onRun(args, 'POST', '/cancel', bodyOf(args)),
  },
];

const schemas = new Map<string, Record<string, unknown>>();

/**
 * A tool's arguments as JSON Schema (an object schema, as MCP requires), computed once.
 * @example mcpInputSchema(MCP_API_TOOLS[0]!).type; // 'object'
 */
export function mcpInputSchema(tool: McpApiTool): Record<string, unknown> {
  let schema = schemas.get(tool.name);
  if (!schema) {
    const { $schema: _, ...rest } = z.toJSONSchema(tool.input, {
      io: 'input',
      unrepresentable: 'any',
    }) as Record<string, unknown>;
    schema = { ...rest, type: 'object' };
    schemas.set(tool.name, schema);
  }
  return schema;
}

/**
 * `agent.dispatch` for in-process runs: register it with a LocalRunner (or an Agent's tools) to name it
 * in a plan. The runner does not call it — it runs the call as a nested LocalRunner, as it runs a
 * step's sub-plan — so its own `run` only refuses callers outside a runner.
 */
import { ToolError } from '../errors';
import { agentDispatchTool } from '../executor/tools/agent-dispatch';

/**
 * @example
 * const runner = new LocalRunner({ tools: [echo, agentDispatch] });
 * runner.start({ plan: { steps: [{ id: 'c', action: 'agent.dispatch', parameters: { plan: childPlan } }] } });
 */
export const agentDispatch = agentDispatchTool((): Promise<never> => {
  const message = 'agent.dispatch starts a child run: a runner (LocalRunner, the PlanRun object) runs it';
  return Promise.reject(new ToolError('needs_runner', message, { retryable: false }));
});

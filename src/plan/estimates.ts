/**
 * Plan estimates (SPEC §2): critical path, maximum width, tokens — so a caller sees cost and
 * duration before approving. STUB: signatures are the contract; the implementation is being written.
 */
import type { PlanGraph } from './graph';
import type { Plan } from './model';
import type { ToolRegistry } from '../executor/registry';

export type Estimates = {
  step_count: number;
  critical_path: { steps: string[]; duration_ms: number };
  max_width: number;
  estimated_tokens: number;
};

export function estimatePlan(
  _plan: Plan,
  _graph: PlanGraph,
  _tools: ToolRegistry,
  _latencyHistory?: Record<string, number>,
): Estimates {
  throw new Error('not implemented');
}

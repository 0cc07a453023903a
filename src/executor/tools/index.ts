/**
 * The registry a deployment runs with: built-in tools, plus the demo pack when DEMO_TOOLS=true.
 * STUB: signatures are the contract; the implementation is being written.
 */
import { ToolRegistry } from '../registry';

export type ToolEnv = { DEMO_TOOLS?: string; HTTP_ALLOWLIST?: string; [k: string]: unknown };

export function createToolRegistry(_env: ToolEnv): ToolRegistry {
  return new ToolRegistry();
}

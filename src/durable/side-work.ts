/**
 * What a run's decisions ask for besides running steps: planning a goal, producing a revision, telling
 * an approver. Each ends by feeding the machine an input (`planned`, `revise`, `revision_failed`, …),
 * so the outcome is an event like everything else.
 */
import type { Command, MachineInput, Refusal } from '../engine/machine';
import type { RunState } from '../engine/state';
import type { ToolRegistry } from '../executor/registry';
import type { SqlStore } from './sql-store';

export type SideCommand = Exclude<Command, { type: 'dispatch' } | { type: 'abort' }>;

export type SideWorkHost = {
  state: RunState;
  env: Env;
  tools: ToolRegistry;
  store: SqlStore;
  apply(inputs: MachineInput[]): Promise<Refusal | undefined>;
};

const NO_PLANNER =
  'No planner is configured to revise this plan: set OPENAI_API_KEY (and optionally OPENAI_BASE_URL, ' +
  'PLANNER_MODEL), or use revision_strategy "skip_and_continue", "abort" or "ask_user"';

export async function runSideWork(c: SideCommand, host: SideWorkHost): Promise<void> {
  switch (c.type) {
    case 'plan':
      await host.apply([
        {
          type: 'planning_failed',
          error: {
            code: 'planning_unavailable',
            message: NO_PLANNER.replace('revise this plan', 'plan this goal'),
            retryable: false,
          },
        },
      ]);
      return;
    case 'revise':
      await host.apply([
        {
          type: 'revision_failed',
          error: { code: 'planning_unavailable', message: NO_PLANNER, retryable: false },
        },
      ]);
      return;
    case 'approval_requested':
    case 'input_requested':
      return;
  }
}

/**
 * The in-process runner's side-work ports (engine/side-work.ts): plans from its {@link PlanProvider},
 * approval and input from the runner's hooks. A hook that throws is reported; an approval hook that
 * throws rejects the plan, with the reason in the comment.
 */
import { toErrorInfo } from '../errors';
import type { PlanProvider } from '../engine/plan-provider';
import type { SidePorts } from '../engine/side-work';
import type { RunnerHooks } from './runner-options';

export function localSidePorts(
  planner: PlanProvider | null,
  hooks: RunnerHooks,
  report: (err: unknown, where: string) => void,
): SidePorts {
  const { approve, inputRequested } = hooks;
  return {
    planner,
    ...(approve
      ? {
          approval: async (plan) => {
            try {
              const ok = (await approve(plan)) === true;
              return { type: 'approval', decision: ok ? 'approve' : 'reject' };
            } catch (err) {
              report(err, 'approve');
              const comment = `the approval hook threw: ${toErrorInfo(err).message}`;
              return { type: 'approval', decision: 'reject', comment };
            }
          },
        }
      : {}),
    ...(inputRequested ? { inputRequested: async (req) => await inputRequested(req) } : {}),
  };
}

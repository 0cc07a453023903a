/**
 * What `LocalRunner.start` is given, turned into the run's `create` input — checked as
 * `POST /v1/runs` checks it: a goal that differs from the plan's own is refused, the config parsed
 * (start-config.ts), the plan validated against the tools and the run's input (an invalid one throws
 * `invalid_plan` with every finding), and the run named by the plan's goal first.
 */
import { EdgeplanError } from '../errors';
import type { MachineInput } from '../engine/machine';
import type { ToolRegistry } from '../executor/registry';
import { differingGoals } from '../plan/differing-goals';
import type { Clock, IdSource } from '../plan/model';
import { validateRunPlan } from './plan-versions';
import type { StartRequest } from './runner-options';
import { startConfig } from './start-config';

/**
 * The `create` input a run starts from, or the refusal (thrown) that says why it cannot start.
 * @example const create = createInput({ plan }, { tools, clock, ids }); machine.apply(create)
 */
export function createInput(
  req: StartRequest,
  deps: { tools: ToolRegistry; clock: Clock; ids: IdSource },
): Extract<MachineInput, { type: 'create' }> {
  const conflict = differingGoals(req.goal, req.plan);
  if (conflict) throw new EdgeplanError('invalid_request', conflict);
  const config = startConfig(req.config);
  // Named before the plan is validated (which takes ids of its own), as it always was.
  const runId = req.runId ?? deps.ids.id('run');
  // As over HTTP, a submitted plan may leave its dependencies to its references (SPEC §2) unless
  // the caller sets require_dependencies; the parsed config's default (true) is for LLM plans.
  const requireDependencies = req.config?.require_dependencies === true;
  const checked =
    req.plan === undefined
      ? null
      : validateRunPlan(
          req.plan,
          { ...config, require_dependencies: requireDependencies },
          { ...deps, runInput: { value: req.input ?? null } },
        );
  const plan = checked?.plan;
  // The plan's own goal first, as the Worker takes it (http/run-service.ts): differingGoals let
  // through only a request goal that agrees with it, or a blank one, which must not name the run.
  const goal = plan ? plan.goal || req.goal || '' : req.goal;
  if (goal === undefined) throw new EdgeplanError('invalid_request', 'start() needs a goal or a plan');
  return {
    type: 'create',
    run_id: runId,
    goal,
    ...(plan ? { plan } : {}),
    config,
    input: req.input ?? null,
    estimates: checked?.estimates ?? null,
    ...(req.state ? { state: req.state } : {}),
  };
}

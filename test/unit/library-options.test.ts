import { describe, expect, it } from 'vitest';
import { resolvePlanningOptions, runConfigFor } from '../../src/library/options';
import { PlanningPattern } from '../../src/library/planning-pattern';

describe('PlanningPattern options', () => {
  it('takes seed 000’s defaults', () => {
    expect(new PlanningPattern().options).toEqual({
      maxSteps: 20,
      executionMode: 'sequential',
      maxParallel: 3,
      allowRevision: true,
      maxRevisions: 3,
      requirePlanApproval: false,
      continueOnFailure: false,
      planningPrompt: null,
      hierarchical: false,
      maxDecompositionDepth: 2,
      retryFailedSteps: 1,
      retryDelay: 1,
      stepTimeout: 60,
      onStepFailure: 'replan',
      revisionStrategy: 'replan_remaining',
      tokenBudget: null,
      requireDependencies: false,
      requireFallbacks: false,
      revisionThreshold: 0.3,
      planningModel: null,
      structuredOutput: true,
    });
  });

  it('takes seed 000’s planning options and carries them into the run config', () => {
    const o = resolvePlanningOptions({
      requireDependencies: true,
      requireFallbacks: true,
      revisionThreshold: 0.5,
      planningModel: 'gpt-4o',
      structuredOutput: false,
    });
    expect(runConfigFor(o)).toMatchObject({
      require_dependencies: true,
      require_fallbacks: true,
      revision_threshold: 0.5,
      planning: { model: 'gpt-4o', structured_output: false },
    });
  });

  it.each([
    [{ maxParallel: 0 }, 'maxParallel must be >= 1 (got 0)'],
    [{ maxSteps: 2.5 }, 'maxSteps must be an integer (got 2.5)'],
    [{ maxRevisions: -1 }, 'maxRevisions must be >= 0 (got -1)'],
    [{ executionMode: 'fast' }, 'executionMode must be one of sequential, parallel, adaptive (got "fast")'],
    [{ allowRevision: 'yes' }, 'allowRevision must be true or false (got "yes")'],
    [{ stepTimeout: 0 }, 'stepTimeout must be > 0 (got 0)'],
    [{ planningPrompt: '  ' }, 'planningPrompt must be a non-empty string or null (got "  ")'],
    [{ tokenBudget: 0 }, 'tokenBudget must be >= 1 (got 0)'],
    [{ max_parallel: 5 }, 'Unknown option max_parallel; did you mean maxParallel?'],
    [{ revisionThreshold: 2 }, 'revisionThreshold must be <= 1 (got 2)'],
    [{ planningModel: '' }, 'planningModel must be a model name or null (got "")'],
    [{ structuredOutput: 'no' }, 'structuredOutput must be true or false (got "no")'],
  ])('refuses %j when constructed: "%s"', (options, message) => {
    expect(() => new PlanningPattern(options as never)).toThrow(message);
    try {
      new PlanningPattern(options as never);
    } catch (err) {
      expect(err).toMatchObject({ name: 'EdgeplanError', code: 'invalid_options' });
    }
  });

  it('maps onto the engine’s run configuration, camelCase to the seed’s names', () => {
    const config = runConfigFor(
      resolvePlanningOptions({
        maxSteps: 15,
        executionMode: 'parallel',
        maxParallel: 5,
        maxRevisions: 1,
        requirePlanApproval: true,
        maxDecompositionDepth: 4,
        stepTimeout: 2.5,
        tokenBudget: 10_000,
      }),
    );
    expect(config).toMatchObject({
      max_steps: 15,
      execution_mode: 'parallel',
      max_parallel: 5,
      max_revisions: 1,
      require_plan_approval: true,
      max_depth: 4,
      step_timeout: 2.5,
      token_budget: 10_000,
    });
  });

  it('revises failed steps by default, and carries on past them with continueOnFailure', () => {
    expect(runConfigFor(resolvePlanningOptions({})).on_step_failure).toBe('replan');
    expect(runConfigFor(resolvePlanningOptions({ allowRevision: false })).on_step_failure).toBe('abort');
    expect(runConfigFor(resolvePlanningOptions({ continueOnFailure: true }))).toMatchObject({
      on_step_failure: 'abort',
      continue_on_failure: true,
    });
    expect(runConfigFor(resolvePlanningOptions({ onStepFailure: 'skip' })).on_step_failure).toBe('skip');
  });
});

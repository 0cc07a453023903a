/**
 * Why a step was skipped, in words, for each `skip_reason` the run records — the same in the
 * dashboard's step panel and in `edgeplan show`.
 * @example skippedBecause('when_false') // 'its `when` condition was false'
 */
export const SKIPPED_BECAUSE: Record<string, string> = {
  when_false: 'its `when` condition was false',
  dependency_failed: 'a step it depends on failed',
  missing_input: 'an input it reads is missing (a branch not taken)',
  failure_strategy: 'the run’s failure strategy skipped it',
  run_terminated: 'the run ended before it ran',
  cancelled: 'the run was cancelled before it ran',
  not_reached: 'the run finished without reaching it',
};

/**
 * `reason` in words, or the code itself when it is one this release does not know. Given why the run
 * ended, a step a rejection skipped says so: the API lists a rejected run as `cancelled`
 * (`termination_reason: "plan_rejected"`), and its steps read "cancelled" to someone who cancelled nothing.
 * @example skippedBecause('cancelled', 'plan_rejected') // 'the plan was rejected before it ran'
 */
export const skippedBecause = (reason: string, runEndedBecause?: string | null): string =>
  reason === 'cancelled' && runEndedBecause === 'plan_rejected'
    ? 'the plan was rejected before it ran'
    : (SKIPPED_BECAUSE[reason] ?? reason);

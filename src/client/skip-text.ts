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

/** `reason` in words, or the code itself when it is one this release does not know. */
export const skippedBecause = (reason: string): string => SKIPPED_BECAUSE[reason] ?? reason;

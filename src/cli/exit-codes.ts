/** The `edgeplan` command's exit codes (SPEC §8). */
export const EXIT = {
  /** The run completed, or the command did what it was asked. */
  ok: 0,
  /** The run failed, was aborted or cancelled; the plan is invalid; the API refused. */
  failed: 1,
  /** The command line is wrong (unknown command or option, a missing argument, an unreadable file). */
  usage: 2,
  /** The run waits for approval or input (and the command is not watching it). */
  waiting: 3,
  /** Ctrl-C: detached from the run, which goes on. */
  interrupted: 130,
} as const;

/** A mistake in how the command was called: exit 2 with this message. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** The exit code a run's status means. */
export function exitForStatus(status: string): number {
  if (status === 'completed') return EXIT.ok;
  if (status === 'awaiting_approval' || status === 'awaiting_input') return EXIT.waiting;
  if (status === 'failed' || status === 'aborted' || status === 'cancelled') return EXIT.failed;
  return EXIT.ok;
}

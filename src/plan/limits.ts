/**
 * The longest wait a run may be told to make, in seconds — a step's timeout, a retry's delay, an
 * approval's deadline: a year. Each becomes a deadline and a Durable Object alarm, which takes no
 * date after 2189 (a step_timeout of 1e10 s was a 500, and 1e308 an invalid date); a wait past any
 * real need is a mistake to report, not one to attempt.
 */
export const MAX_WAIT_S = 365 * 24 * 3600;

/**
 * What a wait in seconds (`step_timeout`, `retry_delay`, `approval.timeout_s`) over the limit is told:
 * the unit and what the number is, which a bare "must be at most 31536000" left to guess.
 */
export const WAIT_S_TOO_LONG = `must be at most ${MAX_WAIT_S} seconds (a year)`;
/** The same for a step's `timeout_ms`, in milliseconds. */
export const WAIT_MS_TOO_LONG = `must be at most ${MAX_WAIT_S * 1000} milliseconds (a year)`;

/**
 * The longest `Retry-After` a step's retry waits for, in seconds: an hour. A service that asks for
 * longer (a daily quota spent) is not called again within the run's retries — the step goes to its
 * fallback or fails, saying so — rather than leaving the run asleep for a day nobody asked for.
 */
export const MAX_RETRY_AFTER_S = 3600;

/**
 * The most retries a step may be given, by the run's `retry_failed_steps` or its own `retries`. With
 * the delay doubling up to {@link MAX_WAIT_S}, a step's own `retries: 1000000` (no limit before) kept a
 * failing step, and its run, going for as long as anyone cared to look.
 */
export const MAX_RETRIES = 100;

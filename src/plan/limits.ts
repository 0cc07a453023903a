/**
 * The longest wait a run may be told to make, in seconds — a step's timeout, a retry's delay, an
 * approval's deadline: a year. Each becomes a deadline and a Durable Object alarm, which takes no
 * date after 2189 (a step_timeout of 1e10 s was a 500, and 1e308 an invalid date); a wait past any
 * real need is a mistake to report, not one to attempt.
 */
export const MAX_WAIT_S = 365 * 24 * 3600;

/**
 * The longest `Retry-After` a step's retry waits for, in seconds: an hour. A service that asks for
 * longer (a daily quota spent) is not called again within the run's retries — the step goes to its
 * fallback or fails, saying so — rather than leaving the run asleep for a day nobody asked for.
 */
export const MAX_RETRY_AFTER_S = 3600;

/**
 * A plan's estimates in one line, as the CLI, the dashboard and the approval page say them:
 * `3 steps, critical path a → b (~1.20 s)`. A critical path with no time estimate (tools that report
 * none) leaves the duration out rather than print `~0.00 s`; one under 10 ms says milliseconds.
 */
import type { Estimates } from './types';

/**
 * @example estimateText({ step_count: 1, critical_path: { steps: ['a'], duration_ms: 1200 }, … }) // '1 step, critical path a (~1.20 s)'
 */
export function estimateText(e: Pick<Estimates, 'step_count' | 'critical_path'>): string {
  const steps = `${e.step_count} step${e.step_count === 1 ? '' : 's'}`;
  const ms = e.critical_path.duration_ms;
  // Under 10 ms (instant tools) in milliseconds: in seconds it would read ~0.00 s.
  const time =
    ms <= 0 ? '' : ms < 10 ? ` (~${Math.max(1, Math.round(ms))} ms)` : ` (~${(ms / 1000).toFixed(2)} s)`;
  return `${steps}, critical path ${e.critical_path.steps.join(' → ')}${time}`;
}

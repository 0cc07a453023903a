/**
 * Where an attempt is carried out: inline in the run's object, or on a queue consumer. A sequential run
 * keeps every step in its object; a parallel one follows its `placement` config, whose `auto` asks the
 * step's tool (`placement: "object"` for tools that only wait or do microseconds of work).
 */
import type { RunState } from './state';

export type ToolPlacement = 'object' | 'queue';

export function placeAttempt(
  state: RunState,
  action: string,
  toolPlacement: (action: string) => ToolPlacement | undefined = () => undefined,
): 'queue' | 'inline' {
  const { execution_mode, placement = 'auto' } = state.config;
  if (execution_mode === 'sequential' || placement === 'object') return 'inline';
  if (placement === 'queue') return 'queue';
  return toolPlacement(action) === 'object' ? 'inline' : 'queue';
}

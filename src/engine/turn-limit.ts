/**
 * Where an iterative or ReAct run's turns stop short of the model's say-so. An iterative run takes at
 * most `max_steps` turns — and a plan already `max_steps` steps long whose steps all completed leaves
 * the next turn nothing it may do (every step a turn adds is refused as `too_many_steps`; the steps
 * that ran are kept), so the run stops there rather than ask the model for a plan it would have to
 * refuse. The run then ends `success` as before, with the limit said on `RunTerminated` and the
 * snapshot, so nobody takes a run the limit cut short for one whose model was done. Pure.
 */
import type { RunLimit } from './events';
import type { RunState } from './state';

/** The plan has no room for another step: `max_steps` steps, every one completed. */
export function planIsFull(state: RunState): boolean {
  const steps = state.plan?.steps.length ?? 0;
  if (steps < state.config.max_steps) return false;
  for (const rt of state.steps.values()) if (rt.status !== 'completed') return false;
  return true;
}

/**
 * The limit that stops an iterative run's next turn, or null while another turn may be taken.
 * @example iterativeLimit(state) // { setting: 'max_steps', value: 3, turns: 2, message: 'Stopped after 2 turns: …' }
 */
export function iterativeLimit(state: RunState): RunLimit | null {
  const value = state.config.max_steps;
  const turns = state.turns;
  const taken = `${turns} turn${turns === 1 ? '' : 's'}`;
  if (turns >= value) {
    return {
      setting: 'max_steps',
      value,
      turns,
      message: `Stopped after ${taken}: max_steps (${value}) bounds an iterative run's turns, and the model had not said it was done; raise max_steps to let it go on`,
    };
  }
  if (planIsFull(state)) {
    return {
      setting: 'max_steps',
      value,
      turns,
      message: `Stopped after ${taken}: the plan has max_steps (${value}) steps, all completed, so another turn could add none; raise max_steps to let the model go on`,
    };
  }
  return null;
}

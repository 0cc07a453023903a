/**
 * How a `staged` run's stage state follows its events (the fold's part for stages): which stage is
 * open, whether it has its steps yet (and which they are: its output is the last of them to complete),
 * and how often the run rewound.
 */
import { stagesOf } from '../plan/config';
import type { RunEvent } from './events';
import type { RunState } from './state';

/** A stage opens: the one named (by a transition, or the next in order). */
export function stageStarted(state: RunState, e: RunEvent<'StageStarted'>): void {
  const at = stagesOf(state.config).findIndex((st) => st.name === e.payload.stage);
  state.stage = at >= 0 ? at : state.stage + 1;
  state.stage_open = true;
  state.stage_planned = false;
  state.stage_steps = [];
  if (e.payload.rewind) state.stage_rewinds += 1;
}

/** The open stage got its steps: the first plan's, or those a turn's revision changed or added. */
export function stagePlanned(state: RunState, steps: string[]): void {
  if (!state.stage_open) return;
  state.stage_planned = true;
  state.stage_steps = steps;
}

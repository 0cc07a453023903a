/**
 * What a run's machine is given in a Durable Object: the clock, ids, the run's rows for results, whether
 * a planner can revise or judge, and where an attempt runs (placement.ts; in the object once the steps
 * queue was found without a consumer, expired-leases.ts).
 */
import type { MachineDeps } from '../engine/machine';
import type { RunState } from '../engine/state';
import { placeAttempt } from '../engine/placement';
import type { ToolRegistry } from '../executor/registry';
import { plannerConfigured } from './planner-config';
import type { SqlStore } from './sql-store';

export function machineDeps(
  env: Env,
  store: SqlStore,
  tools: () => ToolRegistry,
  queueBypassed: () => boolean,
): MachineDeps {
  return {
    clock: { now: () => new Date() },
    ids: {
      id: (p: string) => `${p}_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`,
      uuid: () => crypto.randomUUID(),
    },
    results: store,
    canRevise: plannerConfigured(env),
    judge: plannerConfigured(env),
    dispatch: (state: RunState, _step: unknown, action: string) => {
      const placed = placeAttempt(state, action, (a) => tools().get(a)?.placement);
      return placed === 'queue' && queueBypassed() ? 'inline' : placed;
    },
  };
}

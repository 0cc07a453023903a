/**
 * What a planning or revision spent before its answer came — or instead of one: carried into the
 * answer it finally gives, or, when the run ends first, charged to the run's `RunTerminated` — so the
 * run's `token_usage` counts every model call the planning trace lists, once, however the run ends.
 * Pure: the Durable Object and the in-process runner both use it.
 */
import type { RunEvent, TokenCount } from './events';
import type { MachineInput } from './machine-types';
import type { RunState } from './state';

/**
 * `input` with the tokens spent before it (`carried`) added to its own: a planning or revision's
 * answer, or its failure. Anything else, or nothing carried, comes back as it was.
 */
export function withCarried(
  input: MachineInput | null,
  carried: TokenCount | undefined,
): MachineInput | null {
  if (!input || !carried || (carried.prompt === 0 && carried.completion === 0)) return input;
  if (
    input.type !== 'planned' &&
    input.type !== 'planning_failed' &&
    input.type !== 'revise' &&
    input.type !== 'revision_failed'
  )
    return input;
  const own = input.tokens;
  const tokens = {
    prompt: (own?.prompt ?? 0) + carried.prompt,
    completion: (own?.completion ?? 0) + carried.completion,
    ...(own?.estimated ? { estimated: own.estimated } : {}),
  };
  return { ...input, tokens };
}

/**
 * The run ends in `events` while planning that spent `spent` is still running: its answer will never
 * be applied, but the calls it had answered were paid for. They are added to the `RunTerminated`'s
 * `tokens` — a key every release folds into `token_usage` — and to `state`'s usage, as folding that
 * event would have. Nothing spent, or no `RunTerminated`: nothing changes.
 * @example chargeEnded(decided.events, machine.state, { prompt: 100, completion: 20 });
 */
export function chargeEnded(events: RunEvent[], state: RunState, spent: TokenCount): void {
  const ended = events.find((e) => e.event_type === 'RunTerminated');
  if (!ended || (spent.prompt === 0 && spent.completion === 0)) return;
  const own = ended.payload.tokens;
  ended.payload = {
    ...ended.payload,
    tokens: {
      prompt: (own?.prompt ?? 0) + spent.prompt,
      completion: (own?.completion ?? 0) + spent.completion,
      ...(own?.estimated ? { estimated: own.estimated } : {}),
    },
  };
  state.token_usage.prompt_tokens += spent.prompt;
  state.token_usage.completion_tokens += spent.completion;
  state.token_usage.total_tokens += spent.prompt + spent.completion;
}

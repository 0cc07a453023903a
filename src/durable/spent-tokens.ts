/**
 * A planning or revision's model tokens across the issues of its side-work row (side-work.ts): each
 * answered call is added to the row as it is recorded, so the calls of an issue lost with its instance
 * (a crash between the model's answer and its repair) still count when a later issue answers — the
 * run's `token_usage` and `token_budget` then see every call the planning trace lists, once.
 */
import type { RunEvent } from '../engine/events';
import type { MachineInput } from '../engine/machine';
import type { RunState } from '../engine/state';
import type { PlanningAttempt, ProvenanceStore } from '../planner/provenance';
import type { SideRow, Spent } from './side-work-journal';

/**
 * A provenance store that tells `onAttempt` each attempt's tokens before storing it with `inner`.
 * @example new TallyingProvenance(new D1ProvenanceStore(db), (t) => journal.spend(id, token, t))
 */
export class TallyingProvenance implements ProvenanceStore {
  constructor(
    private readonly inner: ProvenanceStore,
    private readonly onAttempt: (tokens: Spent) => void,
  ) {}

  get runId(): string | null | undefined {
    return this.inner.runId;
  }

  recordAttempt(attempt: PlanningAttempt): Promise<void> {
    if (attempt.prompt_tokens > 0 || attempt.completion_tokens > 0)
      this.onAttempt({ prompt: attempt.prompt_tokens, completion: attempt.completion_tokens });
    return this.inner.recordAttempt(attempt);
  }

  attempts(planningId: string): ReturnType<ProvenanceStore['attempts']> {
    return this.inner.attempts(planningId);
  }

  reliability(models?: readonly string[]): ReturnType<ProvenanceStore['reliability']> {
    return this.inner.reliability(models);
  }
}

/**
 * `input` with the tokens earlier issues spent (`carried`) added to its own: a planning or revision's
 * answer, or its failure. Anything else, or nothing carried, comes back as it was.
 */
export function withCarried(input: MachineInput | null, carried: Spent | undefined): MachineInput | null {
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
 * The run ends in `events` while the planning or revision `rows` are still running (cancelled, failed,
 * a fault): their answers will never be applied, but the model calls their issues had answered were
 * paid for and the planning trace lists them. What they spent is added to the `RunTerminated`'s
 * `tokens` — a key every release folds into `token_usage` — and to `state`'s usage, as folding that
 * event would have. Nothing spent, or no `RunTerminated`: nothing changes.
 * @example if (ended) chargeUnsettled(decided.events, machine.state, journal.all()); journal.drop(ids);
 */
export function chargeUnsettled(events: RunEvent[], state: RunState, rows: readonly SideRow[]): void {
  const spent = { prompt: 0, completion: 0 };
  for (const { task } of rows) {
    if ((task.type !== 'plan' && task.type !== 'revise') || !task.spent) continue;
    spent.prompt += task.spent.prompt;
    spent.completion += task.spent.completion;
  }
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

/**
 * A provenance store that tells its owner each planning attempt's tokens as the attempt is recorded:
 * a planning cut short — its instance lost, its run ended, its deadline passed — still counts the
 * model calls it had answered, which its answer (that never comes) would have counted.
 */
import type { TokenCount } from '../engine/events';
import type { PlanningAttempt, ProvenanceStore } from './provenance';
import type { ModelReliability } from './reliability';

/**
 * @example new TallyingProvenance(new D1ProvenanceStore(db), (t) => journal.spend(id, token, t))
 */
export class TallyingProvenance implements ProvenanceStore {
  /** @param inner where attempts are stored; none: only told, not kept. */
  constructor(
    private readonly inner: ProvenanceStore | undefined,
    private readonly onAttempt: (tokens: TokenCount) => void,
  ) {}

  get runId(): string | null | undefined {
    return this.inner?.runId;
  }

  recordAttempt(attempt: PlanningAttempt): Promise<void> {
    if (attempt.prompt_tokens > 0 || attempt.completion_tokens > 0)
      this.onAttempt({ prompt: attempt.prompt_tokens, completion: attempt.completion_tokens });
    return this.inner ? this.inner.recordAttempt(attempt) : Promise.resolve();
  }

  attempts(planningId: string): ReturnType<ProvenanceStore['attempts']> {
    return this.inner ? this.inner.attempts(planningId) : Promise.resolve([]);
  }

  reliability(models?: readonly string[]): ReturnType<ProvenanceStore['reliability']> {
    return this.inner ? this.inner.reliability(models) : Promise.resolve(new Map<string, ModelReliability>());
  }
}

/**
 * What a run's page says the run is now, derived from the run followed live (use-run.ts): its status
 * (the snapshot's when that is ahead of the events), whether the page may offer actions yet, what it
 * waits for, how it ended, its step counts and the steps as drawn. Pure: no state of its own.
 */
import type { Run, RunEvent, RunView, StepView } from '../client';
import { endingOf, shownStatus, type Ending } from './run-ending';
import { stepsNow } from './steps-now';

/** The statuses a run ends in (it may go on after a retry). */
export const ENDED = new Set(['completed', 'failed', 'aborted', 'cancelled']);

/** What the page has of the run (use-run.ts's LiveRun): the fold of its events and its snapshot. */
export type FollowedRun = { view: RunView; run: Run | null; events: RunEvent[]; caughtUp: boolean };

export type RunStatusNow = {
  /**
   * The page has read something of the run: its snapshot or an event. Before that its status, plan and
   * counts are not known — not "planning" with "no plan yet", which an empty view would say of a run
   * awaiting approval on a slow link, or forever when the API refuses the page's token.
   */
  known: boolean;
  status: string;
  /** The status as shown: `rejected` for a run whose plan was rejected. */
  shown: string;
  ended: boolean;
  /** The page has read the run up to its snapshot: actions may be offered. */
  acts: boolean;
  waitingApproval: boolean;
  waitingInput: boolean;
  /** The input request being answered (a new one gets a new form). */
  request: RunEvent | undefined;
  /** For ask_user: the step the run asks about. */
  asked: StepView | undefined;
  ending: Ending | null;
  rejected: boolean;
  completed: number;
  failed: number;
  skipped: number;
  /** Steps that were running when the run ended (not running any more). */
  interrupted: number;
  total: number;
  /** A streamed plan still arriving: more steps may come. */
  streaming: boolean;
  goal: string;
  steps: StepView[];
  /** Step id → the dependencies its references add (from the snapshot). */
  inferred: Record<string, string[]>;
};

/** The run as its page shows it now. */
export function runStatusNow(live: FollowedRun, runId: string): RunStatusNow {
  const { view, run } = live;
  // The snapshot can be ahead of the events: read after a refused action (the run was decided
  // elsewhere) while its events are late. Then its status is the run's, not the events' so far.
  const ahead = run !== null && live.caughtUp && run.last_seq > view.last_seq;
  // Still replaying the run's past up to the snapshot first read: the snapshot is the run now, so its
  // counts and step colours are drawn (a 10,000-step run's replay takes seconds; meanwhile the page
  // said "completed · 3889/10000 steps completed", its nodes turning green one by one). The status
  // stays the events' (below) until caught up, so no action is offered that the run no longer allows.
  const behind = run !== null && !live.caughtUp && run.last_seq > view.last_seq;
  const snapshot = ahead || behind ? run : null;
  const status =
    run && (ENDED.has(run.status) || ahead)
      ? run.status
      : view.status === 'planning' && run
        ? run.status
        : view.status;
  const ended = ENDED.has(status);
  const inferred = inferredOf(run);
  const goal = view.goal || run?.goal || runId;
  // Drawn as the run read again has them when that is ahead of the events (as the status is).
  const steps = stepsNow(view, snapshot);
  // Actions only once the page has read the run up to its snapshot: while it replays the past it would
  // offer what the run no longer allows (Retry on a rejected run, Roll back on a completed one).
  const acts = live.caughtUp;
  const waitingApproval = acts && status === 'awaiting_approval';
  const waitingInput = acts && status === 'awaiting_input';
  // The input request being answered (a new one gets a new form) and, for ask_user, its failed step.
  // Looked for only while it waits (then near the end): a scan of 300,000 events each redraw was not.
  const request = waitingInput ? live.events.findLast((e) => e.event_type === 'InputRequested') : undefined;
  const asked =
    view.waiting?.kind === 'input' ? view.steps.find((s) => s.id === view.waiting?.step_id) : undefined;
  // Once the events read have ended the run (until then there is no ending of theirs to find).
  const ending = ended && ENDED.has(view.status) ? endingOf(live.events) : null;
  // Rejected: told by the events (the decision), or by the snapshot before they are read.
  const rejected = ending?.kind === 'rejected' || (ended && run?.termination_reason === 'plan_rejected');
  // Skipped steps are not done work: a rejected run read "2/2 steps" though nothing ran. From the
  // snapshot when it is ahead, as the status is: "completed · 0/3 steps completed" read as a fault.
  // An ended run's steps still running when it ended are `interrupted`, not running (counts.interrupted).
  const count = (status: 'completed' | 'failed' | 'skipped' | 'interrupted') =>
    snapshot ? snapshot.counts[status] : view.steps.filter((s) => s.status === status).length;
  const [completed, failed, skipped, interrupted] = [
    count('completed'),
    count('failed'),
    count('skipped'),
    count('interrupted'),
  ];
  const total = snapshot ? snapshot.counts.total : view.steps.length;
  // A streamed plan's steps run as they arrive: until the plan is authored (v1) more may come, so
  // "3/3 steps completed" while the model still writes would read as done.
  const streaming = !ended && view.plan_version === null && view.steps.length > 0;
  const shown = shownStatus(status, rejected ? 'plan_rejected' : null);
  return {
    known: run !== null || view.last_seq > 0,
    status,
    shown,
    ended,
    acts,
    waitingApproval,
    waitingInput,
    request,
    asked,
    ending,
    rejected,
    completed,
    failed,
    skipped,
    interrupted,
    total,
    streaming,
    goal,
    steps,
    inferred,
  };
}

/** Each snapshot's inferred dependencies, by step: worked out once a snapshot, not once a redraw. */
const inferredBySnapshot = new WeakMap<Run, Record<string, string[]>>();

/** Step id → the dependencies its references add (from the snapshot; none without one). */
function inferredOf(run: Run | null): Record<string, string[]> {
  if (!run) return {};
  let inferred = inferredBySnapshot.get(run);
  if (!inferred) {
    inferred = Object.fromEntries(
      Object.entries(run.steps).map(([id, d]) => [id, d.inferred_dependencies ?? []]),
    );
    inferredBySnapshot.set(run, inferred);
  }
  return inferred;
}

/**
 * A failed step among `id`'s dependencies (listed or inferred), transitively: the API retries that
 * one, not `id`.
 */
export function failedDependency(
  steps: readonly StepView[],
  inferred: Record<string, string[]>,
  id: string,
): string | null {
  const byId = new Map(steps.map((s) => [s.id, s]));
  const seen = new Set<string>();
  const stack = [...(byId.get(id)?.dependencies ?? []), ...(inferred[id] ?? [])];
  while (stack.length > 0) {
    const dep = stack.pop()!;
    if (seen.has(dep)) continue;
    seen.add(dep);
    const d = byId.get(dep);
    if (d?.status === 'failed') return dep;
    stack.push(...(d?.dependencies ?? []), ...(inferred[dep] ?? []));
  }
  return null;
}

/**
 * A run page's title: the goal (cut to a line; a click or Enter shows it whole), the status badge
 * and the step counts, the plan version, and the tokens spent — or, before anything of the run is
 * read, that it is being read (or could not be).
 */
import type { Ref } from 'preact';
import { useState } from 'preact/hooks';
import type { RunStatusNow } from '../run-status';
import { visibleText } from '../visible-text';

export function RunTitle({
  now,
  planVersion,
  tokens,
  headingRef,
  readFailed = false,
}: {
  now: RunStatusNow;
  /** Reading the run failed (the page says why): while nothing of it is known, no "reading…". */
  readFailed?: boolean;
  planVersion: number | null;
  /** Tokens the run has spent (not shown while 0). */
  tokens: number | undefined;
  /** The heading, where focus goes after an action (use-run-actions.ts). */
  headingRef: Ref<HTMLHeadingElement>;
}) {
  const [wholeGoal, setWholeGoal] = useState(false);
  const { known, goal, shown, status, rejected, total, completed, failed, skipped, interrupted, streaming } =
    now;
  return (
    <div class="title">
      <h1
        ref={headingRef}
        class={wholeGoal ? 'whole' : undefined}
        // A goal in Arabic or Hebrew reads right to left, its punctuation where its writer put it.
        dir="auto"
        title={visibleText(goal)}
        // A long goal is cut to a line; a click (or Enter) shows it whole. Only to the eye: a screen
        // reader reads it whole either way, so no expanded state (nor a button role whose name, the
        // goal, could be taken for Approve's or Reject's by a test that finds buttons by name).
        tabindex={0}
        onClick={() => setWholeGoal((w) => !w)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' || e.key === ' ') {
            e.preventDefault();
            setWholeGoal((w) => !w);
          }
        }}
      >
        {visibleText(goal)}
      </h1>
      {known ? (
        <>
          <span
            class={`badge status-${shown}`}
            data-run-status={status}
            title={rejected ? 'cancelled: its plan was rejected' : undefined}
          >
            {shown}
          </span>
          <span class="muted step-counts">
            {/* Not "0/0 steps completed · v–" while the planner writes: nothing to count, no version. */}
            {total === 0 ? 'no steps yet' : `${completed}/${total} steps completed`}
            {failed ? ` · ${failed} failed` : ''}
            {skipped ? ` · ${skipped} skipped` : ''}
            {interrupted ? ` · ${interrupted} interrupted` : ''}
            {planVersion === null ? '' : ` · v${planVersion}`}
            {streaming ? (
              <span class="streaming" role="status">
                {' '}
                · the plan is still streaming in: more steps may come
              </span>
            ) : null}
            {tokens ? ` · ${tokens} tokens` : ''}
          </span>
        </>
      ) : (
        // Nothing read yet: no status badge nor counts to guess at.
        <span class="muted step-counts" data-run-unread>
          {readFailed ? 'the run could not be read' : 'reading the run…'}
        </span>
      )}
    </div>
  );
}

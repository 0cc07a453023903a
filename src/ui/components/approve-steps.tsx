/**
 * The steps of a plan awaiting approval, for an approver to read before deciding — on the run page
 * and the approval link's page: the ones the approval lets run, counted in the heading, then —
 * collapsed — the ones a revision kept from before (done, skipped or still running), which the
 * decision does not run again. Once the page's link is spent or dead (`asked`), the heading counts
 * what it asked to approve, not what awaits a decision.
 * @example
 * <ApproveSteps steps={plan.steps} kept={keptOf(now.steps)} inferred={inferred} selected={null} />
 */
import type { ApprovalChanges, PlanStep } from '../../client';
import { keptSummary, splitForApproval, type KeptState } from '../approval-steps';
import { PlanSteps } from './plan-steps';

export function ApproveSteps({
  steps,
  kept,
  inferred,
  selected,
  changes = null,
  asked = false,
}: {
  steps: readonly PlanStep[];
  /** Steps the approval does not run, with what each is (approval-steps.ts). */
  kept: ReadonlyMap<string, KeptState>;
  inferred: Readonly<Record<string, readonly string[]>>;
  selected: string | null;
  changes?: ApprovalChanges | null;
  /** The decision was taken or the link died: these steps were asked about, they no longer await. */
  asked?: boolean;
}) {
  const { toRun, held } = splitForApproval(steps, kept);
  return (
    <section class="approve-steps" aria-labelledby="approve-steps-title">
      <h2 id="approve-steps-title">
        {toRun.length} {toRun.length === 1 ? 'step' : 'steps'} {asked ? 'it asked to approve' : 'to approve'}
      </h2>
      <PlanSteps steps={toRun} inferred={inferred} selected={selected} changes={changes} />
      {held.length > 0 ? (
        <details class="kept-steps">
          <summary>{keptSummary(held.map((s) => kept.get(s.id)!))}</summary>
          <PlanSteps steps={held} inferred={inferred} selected={selected} kept={kept} />
        </details>
      ) : null}
    </section>
  );
}

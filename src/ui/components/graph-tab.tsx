/**
 * A run's Graph tab: the plan as a graph beside the selected step's panel and, while the run waits
 * for approval, every step's parameters in a table to read before approving (not one node at a time)
 * — gone once the run is decided, when the graph's colours and the step panel tell what each step did.
 * Under the graph, the steps later plan versions replaced, each clickable for what it did.
 */
import type { ApprovalChanges, ReplacedStep, Run, RunView, StepView } from '../../client';
import { keptOf } from '../approval-steps';
import { failedDependency } from '../run-status';
import { Dag } from './dag';
import { ApproveSteps } from './approve-steps';
import { replacedAt, replacedKey, ReplacedSteps } from './replaced-steps';
import { StepPanel } from './step-panel';

export function GraphTab({
  steps,
  replaced,
  versions,
  inferred,
  critical,
  run,
  selected,
  onSelect,
  waitingApproval,
  changes = null,
  onRetry,
}: {
  steps: StepView[];
  /** Steps later plan versions replaced (the run view's `replaced`). */
  replaced: readonly ReplacedStep[];
  /** The plan's versions (the run view's), to say which changed the selected step. */
  versions: RunView['versions'];
  inferred: Record<string, string[]>;
  critical: string[];
  run: Run | null;
  selected: string | null;
  onSelect: (id: string) => void;
  waitingApproval: boolean;
  /** What the version awaiting approval changes since the approved one: its steps are marked. */
  changes?: ApprovalChanges | null;
  /** Retries a failed step, when the run allows it. */
  onRetry: ((id: string) => void) | undefined;
}) {
  const step = steps.find((s) => s.id === selected) ?? replacedAt(replaced, selected);
  const select = (key: string) => {
    onSelect(key);
    revealStepPanel();
  };
  const earlier =
    step && !('replaced_by' in step)
      ? replaced.flatMap((r, i) => (r.id === step.id ? [{ key: replacedKey(i), step: r }] : []))
      : [];
  return (
    <>
      <div class="graph-view">
        <div class="graph-column">
          {steps.length === 0 && run && run.counts.total > 0 ? (
            // A big plan is left out of the snapshot ($elided): its steps come with the run's events.
            <p class="muted" data-plan-reading>
              Reading the plan of {run.counts.total.toLocaleString()} steps…
            </p>
          ) : (
            <Dag
              steps={steps}
              inferred={inferred}
              critical={critical}
              selected={selected}
              onSelect={select}
            />
          )}
          <ReplacedSteps replaced={replaced} selected={selected} onSelect={select} />
        </div>
        {step ? (
          <StepPanel
            key={selected}
            step={step}
            run={run}
            failedDependency={step.status === 'skipped' ? failedDependency(steps, inferred, step.id) : null}
            onRetry={onRetry}
            earlier={earlier}
            changedIn={
              step && !('replaced_by' in step)
                ? versions.filter(
                    (v) => v.changes?.changed.includes(step.id) || v.changes?.added.includes(step.id),
                  )
                : []
            }
            onSelect={select}
          />
        ) : (
          <aside class="step-panel muted">Click a step for its inputs, output and attempts.</aside>
        )}
      </div>
      {waitingApproval ? (
        <ApproveSteps
          steps={steps.map((s) => s.planned)}
          kept={keptOf(steps)}
          inferred={inferred}
          selected={selected}
          changes={changes}
        />
      ) : null}
    </>
  );
}

/**
 * After a step is tapped, brings its panel into view when it is drawn below the graph far down the
 * screen (a phone's one column: a tall graph left only the panel's heading showing, if that). Beside
 * the graph, as on a desktop, the panel is already in view and nothing moves.
 */
function revealStepPanel(): void {
  requestAnimationFrame(() => {
    const panel = document.querySelector('.graph-view .step-panel');
    if (panel && panel.getBoundingClientRect().top > innerHeight * 0.6)
      panel.scrollIntoView({ block: 'start', behavior: 'smooth' });
  });
}

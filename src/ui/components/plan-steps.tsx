/**
 * A plan's steps as a table — id (with its description), action, dependencies, parameters — for an
 * approver reading the plan before deciding: on the approval link's page, and on the run page while the
 * run awaits approval (thirty steps read there one graph node at a time otherwise).
 * @example
 * <PlanSteps steps={plan.steps} inferred={inferred} selected={selected} />
 */
import { useMemo, useState } from 'preact/hooks';
import type { ApprovalChanges, PlanStep } from '../../client';
import { foldJson } from '../fold-json';
import { Dependencies } from './dependencies';
import { visibleText } from '../visible-text';
import type { KeptState } from '../approval-steps';

export function PlanSteps({
  steps,
  inferred,
  selected,
  changes = null,
  kept,
}: {
  steps: readonly PlanStep[];
  /** Step id → the dependencies its references add to the ones it lists. */
  inferred: Readonly<Record<string, readonly string[]>>;
  /** The step selected in the graph, marked in its row. */
  selected: string | null;
  /** A revision's changes since the approved version: its added and changed steps are marked. */
  changes?: ApprovalChanges | null;
  /** Steps a revision kept from before (approval-steps.ts), marked with what they are. */
  kept?: ReadonlyMap<string, KeptState>;
}) {
  const marks = new Map<string, 'added' | 'changed'>([
    ...(changes?.added ?? []).map((a) => [a.step_id, 'added'] as const),
    ...(changes?.changed ?? []).map((c) => [c.step_id, 'changed'] as const),
  ]);
  const [rows, setRows] = useState(ROWS);
  // A big plan's first rows, and wherever they are the steps a revision changed and the selected one:
  // what an approver must see is never behind "Show more".
  const shown =
    steps.length <= rows ? steps : steps.filter((s, i) => i < rows || marks.has(s.id) || s.id === selected);
  const hidden = steps.length - shown.length;
  return (
    <>
      <table class="plan-steps">
        <thead>
          <tr>
            <th scope="col">Step</th>
            <th scope="col">Action</th>
            <th scope="col">Depends on</th>
            <th scope="col">Parameters</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((s) => {
            // A sub-plan step has no action of its own: its steps are the child run's.
            const action = s.action ?? (s.subplan ? 'subplan' : '');
            return (
              <tr
                key={s.id}
                class={selected === s.id ? 'selected' : ''}
                data-plan-step={s.id}
                data-change={marks.get(s.id)}
                data-kept={kept?.get(s.id)}
              >
                <td>
                  <code>{s.id}</code>
                  {marks.has(s.id) ? (
                    <>
                      {' '}
                      <span class={`change-mark ${marks.get(s.id)}`}>{marks.get(s.id)}</span>
                    </>
                  ) : null}
                  {kept?.has(s.id) ? (
                    <>
                      {' '}
                      <span class={`kept-mark ${kept.get(s.id)}`}>{KEPT_TEXT[kept.get(s.id)!]}</span>
                    </>
                  ) : null}
                  {/* What the step is for, in the planner's words: an approver reads an LLM's plan by it. */}
                  {/* Not the action again (what a plan written without descriptions gets). */}
                  {s.description && s.description !== action ? (
                    <div class="description" dir="auto">
                      {visibleText(s.description)}
                    </div>
                  ) : null}
                </td>
                <td>{action}</td>
                <td class="deps">
                  <Dependencies listed={s.dependencies ?? []} inferred={inferred[s.id] ?? []} />
                </td>
                <td class="params">
                  <Parameters stepId={s.id} value={s.parameters ?? {}} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {hidden > 0 ? (
        <p class="more-steps">
          <button type="button" onClick={() => setRows((r) => r + ROWS)}>
            Show {Math.min(ROWS, hidden).toLocaleString()} more steps
          </button>{' '}
          <span class="muted">
            {hidden.toLocaleString()} of {steps.length.toLocaleString()} not shown; click a step in the graph
            for its row
          </span>
        </p>
      ) : null}
    </>
  );
}

/**
 * The rows a table draws at first, and then each "Show more": a 10,000-step plan's table was 70,000
 * elements, drawn again with every redraw of the page (opening Modify beside it took 7.6 s).
 */
const ROWS = 200;

const KEPT_TEXT: Record<KeptState, string> = {
  done: 'already done',
  skipped: 'skipped',
  running: 'running',
};

/** A step's parameters as compact JSON, folded when long, with a button to show them whole. */
function Parameters({ stepId, value }: { stepId: string; value: Record<string, unknown> }) {
  const [open, setOpen] = useState(false);
  const { whole, folded } = useMemo(() => foldJson(value), [value]);
  if (folded === null) return <code>{whole}</code>;
  return (
    <>
      <code id={`params-${stepId}`}>{open ? whole : folded}</code>{' '}
      <button
        type="button"
        class="unfold"
        aria-expanded={open}
        aria-controls={`params-${stepId}`}
        onClick={() => setOpen((o) => !o)}
      >
        {open ? 'fold' : `show all ${whole.length.toLocaleString()} characters`}
      </button>
    </>
  );
}

/**
 * The child runs of a step that runs one (`agent.dispatch`, a sub-plan), linked: each attempt's child
 * has an id derived from the attempt (as the run derives it), so it is known from the moment the
 * attempt starts — while the child still runs, or after it failed — not only from a success's output.
 */
import { useEffect, useState } from 'preact/hooks';
import type { StepView } from '../../client';
import { CHILD_RUN_ACTION, childRunId } from '../../engine/child-run';
import { href } from '../router';

/** Whether the step runs a child run. */
export function runsChild(step: StepView): boolean {
  return step.action === CHILD_RUN_ACTION || !!step.planned.subplan;
}

export function ChildRuns({ runId, step }: { runId: string; step: StepView }) {
  const attempts = Array.from({ length: step.attempts }, (_, i) => i + 1);
  const [ids, setIds] = useState<string[]>([]);
  useEffect(() => {
    let live = true;
    void Promise.all(
      attempts.map((attempt) => childRunId({ run_id: runId, step_id: step.id, attempt })),
    ).then((found) => live && setIds(found));
    return () => {
      live = false;
    };
  }, [runId, step.id, step.attempts]);
  if (step.attempts === 0) return <span class="muted">None yet: it has not started.</span>;
  return (
    <ul class="child-runs">
      {ids.map((id, i) => (
        <li key={id}>
          <a href={href.run(id)}>
            <code>{id}</code>
          </a>
          {ids.length > 1 ? <span class="muted"> · attempt {i + 1}</span> : null}
        </li>
      ))}
    </ul>
  );
}

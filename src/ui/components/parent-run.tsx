/**
 * Where a child run came from, beside its id: "Child of <parent> (step X)", the parent linked — the
 * way back from a child the parent's step panel links (child-runs.tsx). Nothing for a run no step
 * started, nor before the run is read.
 */
import type { Run } from '../../client';
import { href } from '../router';

export function ParentRun({ run }: { run: Pick<Run, 'parent_run_id' | 'parent_step_id'> | null }) {
  if (!run?.parent_run_id) return null;
  return (
    <span class="parent-run">
      {' · Child of '}
      <a href={href.run(run.parent_run_id)}>
        <code>{run.parent_run_id}</code>
      </a>
      {run.parent_step_id ? (
        <>
          {' (step '}
          <code>{run.parent_step_id}</code>)
        </>
      ) : null}
    </span>
  );
}

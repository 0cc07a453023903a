/**
 * A run's Planning tab: each plan version (kind, why, the tokens it cost), the model's reasoning, every
 * LLM attempt behind them (planning-attempts.tsx), and the run's token total and revisions.
 */
import type { Run, RunEvent, RunView } from '../../client';
import { PlanningAttempts } from './planning-attempts';
import { Reasoning } from './reasoning';

export function PlanningTab({
  runId,
  view,
  run,
  events,
  status,
  streaming,
}: {
  runId: string;
  view: RunView;
  run: Run | null;
  events: RunEvent[];
  status: string;
  streaming: boolean;
}) {
  return (
    <section class="planning">
      <h2>Plan versions</h2>
      {view.versions.length === 0 ? (
        <p class="muted">
          {streaming
            ? 'None yet: the plan is still streaming in.'
            : status === 'planning'
              ? 'None yet: the planner is writing the first plan.'
              : 'None: this run never had a plan.'}
        </p>
      ) : (
        <div class="table-scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Kind</th>
                <th scope="col">Why</th>
                <th scope="col" class="num">
                  Tokens (prompt / completion)
                </th>
              </tr>
            </thead>
            <tbody>
              {view.versions.map((v, i) => (
                <tr key={i}>
                  <td>v{v.version ?? '?'}</td>
                  <td>{v.kind}</td>
                  <td>{v.reason}</td>
                  <td class="num">{v.tokens ? `${v.tokens.prompt} / ${v.tokens.completion}` : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Reasoning events={events} />
      <h2>LLM attempts</h2>
      <PlanningAttempts
        runId={runId}
        // Read again when the run gets a plan version, or its planning ends (failed, or planned).
        refreshKey={`${view.plan_version}:${status}:${view.versions.length}`}
        planning={status === 'planning' || streaming}
        planningFailed={run?.error?.code === 'planning_failed'}
      />
      <p class="muted">
        Run total: {run?.token_usage.prompt_tokens ?? 0} prompt + {run?.token_usage.completion_tokens ?? 0}{' '}
        completion tokens · {revisions(run?.revision_count ?? 0)}
      </p>
    </section>
  );
}

/** "1 revision", "2 revisions": the run's count as a person reads it. */
function revisions(n: number): string {
  return `${n} revision${n === 1 ? '' : 's'}`;
}

/** The planning tab's table: every LLM attempt behind the run's plan versions. */
import { useEffect, useState } from 'preact/hooks';
import type { PlanningTrace } from '../../client';
import { api, errorText } from '../api';

/**
 * The LLM attempts behind the run's plan versions: which planning request (the first plan, then each
 * revision or turn), model, repairs, outcome, findings, tokens. Read again when `refreshKey` changes;
 * `planning`: the run has no plan yet and is still getting one (its attempts are listed after);
 * `planningFailed`: the run ended with `planning_failed`, so an LLM was asked even if no attempt is listed.
 */
export function PlanningAttempts({
  runId,
  refreshKey,
  planning,
  planningFailed,
}: {
  runId: string;
  refreshKey: string;
  planning: boolean;
  planningFailed: boolean;
}) {
  const [trace, setTrace] = useState<PlanningTrace | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api()
      .getPlanningTrace(runId)
      .then((t) => {
        setTrace(t);
        setError(null);
      })
      .catch((e: unknown) => setError(errorText(e)));
  }, [runId, refreshKey]);
  if (error) return <p class="error">{error}</p>;
  if (!trace) return null;
  if (trace.attempts.length === 0)
    return (
      <p class="muted">
        {planning
          ? 'The planner is at work: its attempts are listed once this planning ends.'
          : planningFailed
            ? // A release before D1 migration 0004 filed a failed planning's attempts under no run.
              'The LLM’s attempts at this run’s failed planning are not on record: the release that ' +
              'planned it did not file them under the run (the error above says what went wrong).'
            : 'No LLM planned this run: its plan was submitted, or made by the rule-based planner.'}
      </p>
    );
  // Each planning request (a first plan, a revision, a turn) numbers its attempts from 1: the request
  // tells apart the rows that would all read "1 · first".
  const requests = [...new Set(trace.attempts.map((a) => a.planning_id))];
  return (
    <div class="table-scroll">
      <table class="attempts-trace" aria-label="Planning attempts">
        <thead>
          <tr>
            <th scope="col" title="Planning request: the first plan, then each revision or turn">
              Request
            </th>
            <th scope="col">#</th>
            <th scope="col">Model</th>
            <th scope="col">Attempt</th>
            <th scope="col">Outcome</th>
            <th scope="col" class="num">
              Tokens
            </th>
            <th scope="col" class="num">
              Latency
            </th>
          </tr>
        </thead>
        <tbody>
          {trace.attempts.map((a) => (
            <tr
              key={`${a.planning_id}-${a.seq}`}
              data-outcome={a.outcome}
              data-request={requests.indexOf(a.planning_id) + 1}
            >
              <td title={a.planning_id}>{requests.indexOf(a.planning_id) + 1}</td>
              <td>{a.seq}</td>
              <td class="nowrap">
                <code>{a.model}</code>
              </td>
              <td>
                {a.retry ? `repair ${a.retry}` : 'first'}
                {a.candidate ? ` · candidate ${a.candidate}` : ''}
              </td>
              <td>
                {a.outcome}
                {a.error ? `: ${a.error}` : ''}
                {a.findings.length ? ` (${a.findings.map((f) => f.code).join(', ')})` : ''}
              </td>
              <td
                class="num nowrap"
                title={a.tokens_estimated ? 'Estimated: the server never reported usage' : undefined}
              >
                {a.tokens_estimated ? '~' : ''}
                {a.prompt_tokens} / {a.completion_tokens}
              </td>
              <td class="num nowrap">{Math.round(a.latency_ms)} ms</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The planning tab's table: every LLM attempt behind the run's plan versions. */
import { useEffect, useState } from 'preact/hooks';
import type { PlanningTrace } from '../../client';
import { api, errorText } from '../api';

/** The LLM attempts behind the run's plan versions: model, repairs, outcome, findings, tokens. */
export function PlanningAttempts({ runId, version }: { runId: string; version: number | null }) {
  const [trace, setTrace] = useState<PlanningTrace | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api()
      .getPlanningTrace(runId)
      .then(setTrace)
      .catch((e: unknown) => setError(errorText(e)));
  }, [runId, version]);
  if (error) return <p class="error">{error}</p>;
  if (!trace) return null;
  if (trace.attempts.length === 0)
    return (
      <p class="muted">No LLM planned this run: its plan was submitted, or made by the rule-based planner.</p>
    );
  return (
    <table class="attempts-trace" aria-label="Planning attempts">
      <thead>
        <tr>
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
          <tr key={`${a.planning_id}-${a.seq}`} data-outcome={a.outcome}>
            <td>{a.seq}</td>
            <td>
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
            <td class="num">
              {a.prompt_tokens} / {a.completion_tokens}
            </td>
            <td class="num">{Math.round(a.latency_ms)} ms</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

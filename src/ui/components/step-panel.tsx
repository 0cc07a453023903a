/**
 * One step in full: as planned, its resolved inputs (what the last attempt was called with), its
 * output, and every attempt with its tool, outcome, error, latency and idempotency key.
 */
import type { Run, StepView } from '../../client';
import { JsonBlock, jsonText } from './json-block';

export function StepPanel({
  step,
  run,
  failedDependency = null,
  onRetry,
}: {
  step: StepView;
  run: Run | null;
  /** A failed step this one depends on: the one to retry (the API refuses a retry of this one). */
  failedDependency?: string | null;
  onRetry?: (id: string) => void;
}) {
  const last = step.history.at(-1);
  const output = run?.step_results[step.id] ?? step.history.findLast((a) => a.success)?.output;
  const fallback = (step.planned as { fallback_action?: unknown }).fallback_action;
  return (
    <aside class="step-panel" aria-label={`Step ${step.id}`}>
      <header>
        <h3>
          {step.id} <span class={`badge status-${step.status}`}>{step.status}</span>
        </h3>
        {onRetry && (step.status === 'failed' || step.status === 'skipped') ? (
          failedDependency ? (
            <button type="button" onClick={() => onRetry(failedDependency)}>
              Retry {failedDependency}
            </button>
          ) : (
            <button type="button" onClick={() => onRetry(step.id)}>
              Retry
            </button>
          )
        ) : null}
      </header>
      {onRetry && failedDependency ? (
        <p class="muted note">
          It depends on <code>{failedDependency}</code>, which failed: retry that step (or the whole run).
        </p>
      ) : null}
      <dl>
        <dt>Action</dt>
        <dd>
          <code>{step.action}</code>
        </dd>
        {step.planned.description ? (
          <>
            <dt>Description</dt>
            <dd>{step.planned.description}</dd>
          </>
        ) : null}
        <dt>Depends on</dt>
        <dd>{step.dependencies.length ? step.dependencies.join(', ') : '—'}</dd>
        {fallback ? (
          <>
            <dt>Fallback</dt>
            <dd>
              <code>{typeof fallback === 'string' ? fallback : jsonText(fallback)}</code>
            </dd>
          </>
        ) : null}
        {step.skip_reason ? (
          <>
            <dt>Skipped</dt>
            <dd>{step.skip_reason}</dd>
          </>
        ) : null}
      </dl>
      <h4>Resolved inputs</h4>
      <JsonBlock
        value={last ? last.parameters : (step.planned.parameters ?? {})}
        file={`${step.id}-inputs.json`}
      />
      {output !== undefined ? (
        <>
          <h4>Output</h4>
          <JsonBlock value={output} file={`${step.id}-output.json`} />
        </>
      ) : null}
      <h4>Attempts</h4>
      {step.history.length === 0 ? (
        <p class="muted">Not run yet.</p>
      ) : (
        <table class="attempts">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Tool · idempotency key</th>
              <th scope="col">Outcome</th>
              <th scope="col" class="num">
                Latency
              </th>
            </tr>
          </thead>
          <tbody>
            {step.history.map((a) => (
              <tr key={`${a.attempt}-${a.started_at}`}>
                <td>{a.attempt}</td>
                <td>
                  <code>{a.tool}</code>
                  <br />
                  <code class="key" title="Idempotency key">
                    {a.idempotency_key}
                  </code>
                </td>
                <td class="outcome-cell">
                  {a.success === null ? (
                    'running'
                  ) : a.success ? (
                    a.cached ? (
                      'ok (cached)'
                    ) : (
                      'ok'
                    )
                  ) : (
                    <Failure code={a.error?.code} message={a.error?.message} tool={a.tool} />
                  )}
                </td>
                <td class="num">{a.latency_ms === null ? '' : `${Math.round(a.latency_ms)} ms`}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </aside>
  );
}

/**
 * A failed attempt's code, once, and its message without the code or the tool's name it often
 * starts with ("demo_flaky: demo.flaky: attempt 1 …" read the code twice over).
 */
function Failure({
  code,
  message,
  tool,
}: {
  code: string | undefined;
  message: string | undefined;
  tool: string;
}) {
  let text = message ?? '';
  for (const prefix of [`${code}: `, `${tool}: `])
    if (text.startsWith(prefix)) text = text.slice(prefix.length);
  return (
    <>
      <code class="code">{code ?? 'failed'}</code>
      {text ? ` ${text}` : ''}
    </>
  );
}

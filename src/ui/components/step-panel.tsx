/**
 * One step in full: as planned, its resolved inputs (what the last attempt was called with), its
 * output, and every attempt with its tool, outcome, error, latency and idempotency key.
 */
import { replacedText, type ReplacedStep, type Run, type RunView, type StepView } from '../../client';
import { skippedBecause } from '../../client/skip-text';
import { attemptText, roundText } from '../../client/attempt-text';
import { nameSourceNote, quotedName } from '../../client/name-source-text';
import { ChildRuns, runsChild } from './child-runs';
import { Dependencies } from './dependencies';
import { JsonBlock, jsonText } from './json-block';
import { visibleText } from '../visible-text';

/** A plan change's kind, as the note under a step's name says it. */
const KIND_WORDS: Record<string, string> = {
  revision: 'a revision',
  approval_edit: 'the approver’s edit',
  rollback: 'a rollback',
  turn: 'the next turn',
};

export function StepPanel({
  step,
  run,
  failedDependency = null,
  onRetry: retry,
  earlier = [],
  changedIn = [],
  onSelect,
}: {
  step: StepView | ReplacedStep;
  run: Run | null;
  /** A failed step this one depends on: the one to retry (the API refuses a retry of this one). */
  failedDependency?: string | null;
  onRetry?: ((id: string) => void) | undefined;
  /** This step's incarnations earlier plan versions replaced, with their selection keys. */
  earlier?: { key: string; step: ReplacedStep }[];
  /** The plan versions that added or changed this step, and why. */
  changedIn?: RunView['versions'];
  onSelect?: (key: string) => void;
}) {
  // A replaced step is history: what it did, nothing to act on, no output of the current plan's.
  const replaced = 'replaced_by' in step ? step : null;
  const onRetry = replaced ? undefined : retry;
  const last = step.history.at(-1);
  // Ran, as the run read again says, before the page has the events of its attempts (late, or held).
  const unread = step.history.length === 0 && step.attempts > 0;
  const inferred = run?.steps[step.id]?.inferred_dependencies ?? [];
  // The snapshot has it for steps the run's end skipped (no StepSkipped event for those).
  const skipReason = step.skip_reason ?? run?.steps[step.id]?.skip_reason ?? null;
  const output =
    (replaced ? undefined : run?.step_results[step.id]) ?? step.history.findLast((a) => a.success)?.output;
  const fallback = (step.planned as { fallback_action?: unknown }).fallback_action;
  // The fallback's attempt, if it ran.
  const fellBack = fallback ? step.history.find((a) => a.fallback) : undefined;
  return (
    <aside
      class={`step-panel${replaced ? ' replaced' : ''}`}
      aria-label={
        replaced ? `Step ${step.id}, replaced (plan v${replaced.plan_version ?? '?'})` : `Step ${step.id}`
      }
    >
      <header>
        <h2>
          {step.id} {replaced ? <span class="badge replaced-badge">replaced</span> : null}{' '}
          <span class={`badge status-${step.status}`}>{step.status}</span>
        </h2>
        {onRetry && (step.status === 'failed' || step.status === 'skipped') ? (
          failedDependency ? (
            <button type="button" onClick={() => onRetry(failedDependency)}>
              Retry {failedDependency}
            </button>
          ) : (
            // Named for the step: the toolbar's "Retry" retries the run, two buttons of one name read alike.
            <button type="button" onClick={() => onRetry(step.id)}>
              Retry {step.id}
            </button>
          )
        ) : null}
      </header>
      {onRetry && failedDependency ? (
        <p class="muted note">
          It depends on <code>{failedDependency}</code>, which failed: retry that step (or the whole run).
        </p>
      ) : null}
      {replaced ? (
        <p class="note replaced-note" data-replaced-by={replaced.replaced_by.version ?? ''}>
          Not in the current plan: {visibleText(replacedText(replaced))}
        </p>
      ) : null}
      {changedIn.map((v) => (
        <p key={v.version ?? v.at} class="note changed-in" data-changed-in={v.version ?? ''}>
          {v.changes?.added.includes(step.id) ? 'Added' : 'Changed'} in plan v{v.version ?? '?'} (
          {KIND_WORDS[v.kind] ?? v.kind}): {visibleText(v.reason)}
        </p>
      ))}
      {earlier.length > 0 ? (
        <div class="note earlier">
          Ran before under an earlier plan version:
          <ul>
            {earlier.map((e) => (
              <li key={e.key}>
                <button type="button" class="link" data-earlier={e.key} onClick={() => onSelect?.(e.key)}>
                  v{e.step.plan_version ?? '?'}: {e.step.status}
                  {e.step.history.length > 0
                    ? `, ${e.step.history.length} attempt${e.step.history.length === 1 ? '' : 's'}`
                    : ''}
                </button>{' '}
                <span class="muted">{visibleText(replacedText(e.step))}</span>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <dl>
        <dt>Action</dt>
        <dd>
          <code>{step.action}</code>
        </dd>
        {/* A plan written without one gets its action as description (plan/model.ts): no second "demo.echo". */}
        {step.planned.description && step.planned.description !== step.action ? (
          <>
            <dt>Description</dt>
            <dd dir="auto">{visibleText(step.planned.description)}</dd>
          </>
        ) : null}
        {step.round ? (
          <>
            <dt>Runs again</dt>
            <dd class="round" data-round={step.round.kind}>
              {attemptText(step) || `In ${roundText(step)}, not started yet`}
              <span class="muted"> — attempts are numbered over the whole run</span>
            </dd>
          </>
        ) : null}
        {step.status === 'retrying' && step.next_attempt ? (
          <>
            <dt>Next attempt</dt>
            <dd data-next-attempt={step.next_attempt.retry_after ? 'retry-after' : 'backoff'}>
              {/* UTC, as the event log says times. */}
              {new Date(step.next_attempt.at).toISOString().slice(11, 19)} UTC
              <span class="muted">
                {step.next_attempt.retry_after
                  ? ' — as long as its service asked (Retry-After)'
                  : ' — after the run’s backoff (retry_delay)'}
              </span>
            </dd>
          </>
        ) : null}
        <dt>Depends on</dt>
        <dd>
          <Dependencies listed={step.dependencies} inferred={inferred} />
        </dd>
        {fallback ? (
          <>
            <dt>Fallback</dt>
            <dd>
              <code>{typeof fallback === 'string' ? fallback : jsonText(fallback)}</code>
              {/* Whether it ran, and how it went: the output above may be the fallback's, not the action's. */}
              {fellBack ? (
                <span class="note fallback-ran" data-fallback-ran={fellBack.success ? 'ok' : 'failed'}>
                  {' '}
                  — ran as attempt {fellBack.attempt}
                  {fellBack.success === null ? '' : fellBack.success ? ', ok' : ', failed'}
                </span>
              ) : (
                <span class="muted"> — not needed</span>
              )}
            </dd>
          </>
        ) : null}
        {run && runsChild(step) ? (
          <>
            <dt>Child run</dt>
            <dd>
              <ChildRuns runId={run.run_id} step={step} />
            </dd>
          </>
        ) : null}
        {step.answered_by ? (
          <>
            <dt>Answered by</dt>
            <dd>
              <span data-answered-by dir="auto">
                {visibleText(quotedName(step.answered_by, step.answered_by_via))}
              </span>
              {nameSourceNote(step.answered_by_via) ? (
                // How the name was established: verified by Access, or a label as given.
                <span class="name-source muted" data-name-source={step.answered_by_via}>
                  {nameSourceNote(step.answered_by_via)}
                </span>
              ) : null}
            </dd>
          </>
        ) : null}
        {step.status === 'interrupted' ? (
          <>
            <dt>Interrupted</dt>
            <dd>
              It was running when the run ended; its tool may have gone on — an outcome that comes later shows
              here.
            </dd>
          </>
        ) : null}
        {skipReason ? (
          <>
            <dt>Skipped</dt>
            <dd data-skip-reason={skipReason}>
              {skippedBecause(skipReason, run?.termination_reason)} <code class="muted">{skipReason}</code>
            </dd>
          </>
        ) : null}
      </dl>
      {last ? (
        <>
          <h3>Resolved inputs</h3>
          <JsonBlock value={last.parameters} file={`${step.id}-inputs.json`} />
        </>
      ) : (
        <>
          <h3>Planned parameters</h3>
          <p class="muted note">
            {unread
              ? 'Its attempts are still being read'
              : step.status === 'skipped'
                ? 'It never ran'
                : 'It has not run yet'}
            : these are the parameters as planned, references unresolved.
          </p>
          <JsonBlock value={step.planned.parameters ?? {}} file={`${step.id}-parameters.json`} />
        </>
      )}
      {output !== undefined ? (
        <>
          <h3>Output</h3>
          <JsonBlock value={output} file={`${step.id}-output.json`} />
        </>
      ) : null}
      <h3>Attempts</h3>
      {step.history.length === 0 ? (
        <p class="muted">
          {unread
            ? `${step.attempts === 1 ? 'One' : step.attempts}, still being read: they show once the run’s events arrive.`
            : step.status === 'skipped'
              ? 'None: it never ran.'
              : 'Not run yet.'}
        </p>
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
                <td>
                  {a.attempt}
                  {step.round && a.attempt === step.round.first_attempt ? (
                    <span class="muted"> ({roundText(step)})</span>
                  ) : null}
                </td>
                <td>
                  <code>{a.tool}</code>
                  {a.fallback ? <span class="muted"> (fallback)</span> : null}
                  <br />
                  <code class="key" title="Idempotency key">
                    {a.idempotency_key}
                  </code>
                </td>
                <td class="outcome-cell">
                  {a.success === null ? (
                    a.ended_at === null ? (
                      'running'
                    ) : (
                      'no outcome: the run ended while it ran'
                    )
                  ) : a.success ? (
                    a.cached ? (
                      'ok (cached)'
                    ) : (
                      'ok'
                    )
                  ) : (
                    <Failure code={a.error?.code} message={a.error?.message} tool={a.tool} />
                  )}
                  {a.after_run_ended ? (
                    <span
                      class="muted note"
                      title="The tool ran to the end, side effects and all; a success is kept, and a retry does not run it again"
                    >
                      {' '}
                      · returned after the run ended
                    </span>
                  ) : null}
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
      {text ? ` ${visibleText(text)}` : ''}
    </>
  );
}

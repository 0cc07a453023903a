/**
 * One run, live: status and the actions it allows (Approve / Reject / Modify while it waits for
 * approval, a form while it waits for input, Retry, Cancel), then the graph with the selected step's
 * details (and, while it waits for approval, every step's parameters in a table), the timeline of attempts, the event log, the plan versions and the planning trace.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, errorText } from '../api';
import { Dag } from '../components/dag';
import { EventLog } from '../components/event-log';
import { InputForm } from '../components/input-form';
import { JsonBlock, jsonText } from '../components/json-block';
import { limitsOf, ModifyPlan } from '../components/modify-plan';
import { endingOf, RunOutcome, shownStatus } from '../components/run-outcome';
import { StepPanel } from '../components/step-panel';
import { DecisionComment } from '../components/decision-comment';
import { DeleteRun } from '../components/delete-run';
import { Timeline } from '../components/timeline';
import { Versions } from '../components/versions';
import { PlanningAttempts } from '../components/planning-attempts';
import { PlanSteps } from '../components/plan-steps';
import { Reasoning } from '../components/reasoning';
import { href } from '../router';
import { stepsNow } from '../steps-now';
import { useRun } from '../use-run';
import { ErrorAlert } from '../components/error-alert';
import { ParentRun } from '../components/parent-run';

const TABS = [
  ['graph', 'Graph'],
  ['timeline', 'Timeline'],
  ['events', 'Events'],
  ['versions', 'Versions'],
  ['planning', 'Planning'],
] as const;

const ENDED = new Set(['completed', 'failed', 'aborted', 'cancelled']);

export function RunPage({ runId, tab }: { runId: string; tab: string }) {
  const live = useRun(runId);
  const { view, run } = live;
  const [selected, setSelected] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [modifying, setModifying] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const deleteButton = useRef<HTMLButtonElement>(null);
  const modifyButton = useRef<HTMLButtonElement>(null);
  const [comment, setComment] = useState('');
  const [wholeGoal, setWholeGoal] = useState(false);
  const [now, setNow] = useState(Date.now());
  // The snapshot can be ahead of the events: read after a refused action (the run was decided
  // elsewhere) while its events are late. Then its status is the run's, not the events' so far.
  const ahead = run !== null && live.caughtUp && run.last_seq > view.last_seq;
  const status =
    run && (ENDED.has(run.status) || ahead)
      ? run.status
      : view.status === 'planning' && run
        ? run.status
        : view.status;

  useEffect(() => {
    if (ENDED.has(status)) return;
    const t = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(t);
  }, [status]);

  // Where focus goes after an action: the button pressed goes away once the run moves on (Approve once
  // approved, Cancel once cancelled), and focus with it to the page's start.
  const heading = useRef<HTMLHeadingElement>(null);

  /**
   * Resolves true when the API took the action. Then focus, if still on the control pressed, goes to
   * the run's heading (the status change is announced on its own); after a refusal it stays on the
   * control, disabled while the request was in flight (the refusal is announced as an alert) — or,
   * when the run read again no longer offers it (decided elsewhere), goes to the heading too.
   */
  const act = async (name: string, action: () => Promise<unknown>, follow = false) => {
    const from = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    setBusy(name);
    setMessage(null);
    let ok = false;
    try {
      await action();
      ok = true;
      if (follow) live.restart();
      else await live.refresh();
    } catch (e) {
      setMessage(errorText(e));
      // Refused (409: approved or cancelled elsewhere, say): what the page shows is out of date, and
      // the run's events may be slow to say so. Read it now, so the page shows what the run allows.
      await live.refresh();
    }
    setBusy(null);
    // After the render that enables the controls again.
    requestAnimationFrame(() => {
      const now = document.activeElement;
      if (now !== from && now !== document.body && now !== null) return;
      if (ok || !from?.isConnected) heading.current?.focus();
      else from.focus();
    });
    return ok;
  };

  const inferred = Object.fromEntries(
    Object.entries(run?.steps ?? {}).map(([id, d]) => [id, d.inferred_dependencies ?? []]),
  );
  const goal = view.goal || run?.goal || runId;
  // Drawn as the run read again has them when that is ahead of the events (as the status is).
  const steps = stepsNow(view, ahead ? run : null);
  const step = steps.find((s) => s.id === selected) ?? null;
  /** A failed step among `id`'s dependencies (listed or inferred), transitively: the API retries that one, not `id`. */
  const failedDependency = (id: string): string | null => {
    const byId = new Map(steps.map((s) => [s.id, s]));
    const seen = new Set<string>();
    const stack = [...(byId.get(id)?.dependencies ?? []), ...(inferred[id] ?? [])];
    while (stack.length > 0) {
      const dep = stack.pop()!;
      if (seen.has(dep)) continue;
      seen.add(dep);
      const d = byId.get(dep);
      if (d?.status === 'failed') return dep;
      stack.push(...(d?.dependencies ?? []), ...(inferred[dep] ?? []));
    }
    return null;
  };
  // Actions only once the page has read the run up to its snapshot: while it replays the past it would
  // offer what the run no longer allows (Retry on a rejected run, Roll back on a completed one).
  const acts = live.caughtUp;
  const waitingApproval = acts && status === 'awaiting_approval';
  const waitingInput = acts && status === 'awaiting_input';
  // The input request being answered (a new one gets a new form) and, for ask_user, its failed step.
  const request = live.events.findLast((e) => e.event_type === 'InputRequested');
  const asked =
    view.waiting?.kind === 'input' ? view.steps.find((s) => s.id === view.waiting?.step_id) : undefined;
  const ending = ENDED.has(status) ? endingOf(live.events) : null;
  // Rejected: told by the events (the decision), or by the snapshot before they are read.
  const rejected =
    ending?.kind === 'rejected' || (ENDED.has(status) && run?.termination_reason === 'plan_rejected');
  // Skipped steps are not done work: a rejected run read "2/2 steps" though nothing ran. From the
  // snapshot when it is ahead, as the status is: "completed · 0/3 steps completed" read as a fault.
  const count = (status: 'completed' | 'failed' | 'skipped') =>
    ahead ? run.counts[status] : view.steps.filter((s) => s.status === status).length;
  const [completed, failed, skipped] = [count('completed'), count('failed'), count('skipped')];
  const total = ahead ? run.counts.total : view.steps.length;
  // A streamed plan's steps run as they arrive: until the plan is authored (v1) more may come, so
  // "3/3 steps completed" while the model still writes would read as done.
  const streaming = !ENDED.has(status) && view.plan_version === null && view.steps.length > 0;
  const shown = shownStatus(status, rejected ? 'plan_rejected' : null);

  // A change of the run's status while the page is open, said once to assistive technology (a polite
  // live region): not the status the page opened on, nor those it passes through while it replays the
  // run's past, nor each step's progress.
  const [announcement, setAnnouncement] = useState('');
  const announced = useRef<string | null>(null);
  useEffect(() => {
    if (!acts) return;
    if (announced.current !== null && announced.current !== shown)
      setAnnouncement(`Status: ${shown.replaceAll('_', ' ')}. ${completed} of ${total} steps completed.`);
    announced.current = shown;
  }, [acts, shown]);

  if (live.missing)
    return (
      <main class="run-page">
        <h1>No such run</h1>
        <p>
          <code class="missing-id">{runId}</code>
        </p>
        <p class="muted" role="alert">
          This deployment has no run with that id: it may be mistyped, or belong to another deployment.{' '}
          <a href={href.runs()}>All runs</a>
        </p>
      </main>
    );

  return (
    // Busy while it reads the run's past up to its snapshot (assistive technology waits it out).
    <main class="run-page" aria-busy={!acts}>
      <div class="toolbar">
        <div class="title">
          <h1
            ref={heading}
            class={wholeGoal ? 'whole' : undefined}
            title={goal}
            // A long goal is cut to a line; a click (or Enter) shows it whole. Only to the eye: a screen
            // reader reads it whole either way, so no expanded state (nor a button role whose name, the
            // goal, could be taken for Approve's or Reject's by a test that finds buttons by name).
            tabindex={0}
            onClick={() => setWholeGoal((w) => !w)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' || e.key === ' ') {
                e.preventDefault();
                setWholeGoal((w) => !w);
              }
            }}
          >
            {goal}
          </h1>
          <span
            class={`badge status-${shown}`}
            data-run-status={status}
            title={rejected ? 'cancelled: its plan was rejected' : undefined}
          >
            {shown}
          </span>
          <span class="muted step-counts">
            {/* Not "0/0 steps completed · v–" while the planner writes: nothing to count, no version. */}
            {total === 0 ? 'no steps yet' : `${completed}/${total} steps completed`}
            {failed ? ` · ${failed} failed` : ''}
            {skipped ? ` · ${skipped} skipped` : ''}
            {view.plan_version === null ? '' : ` · v${view.plan_version}`}
            {streaming ? (
              <span class="streaming" role="status">
                {' '}
                · the plan is still streaming in: more steps may come
              </span>
            ) : null}
            {run?.token_usage.total_tokens ? ` · ${run.token_usage.total_tokens} tokens` : ''}
          </span>
        </div>
        {/* One block: a long goal gives way to it, rather than Modify and Cancel wrapping under Approve. */}
        <div class="actions">
          {waitingApproval ? (
            <>
              <button
                type="button"
                class="primary"
                disabled={!!busy}
                onClick={() =>
                  void act('approve', () => api().approve(runId, { comment: comment.trim() }), true)
                }
              >
                Approve
              </button>
              <button
                type="button"
                disabled={!!busy}
                onClick={() =>
                  void act('reject', () => api().reject(runId, { comment: comment.trim() }), true)
                }
              >
                Reject
              </button>
              <button
                type="button"
                disabled={!!busy}
                ref={modifyButton}
                aria-expanded={modifying}
                onClick={() => setModifying((m) => !m)}
              >
                Modify
              </button>
            </>
          ) : null}
          {acts && ENDED.has(status) && status !== 'completed' && !view.unapproved ? (
            <button
              type="button"
              disabled={!!busy}
              onClick={() => void act('retry', () => api().retry(runId), true)}
            >
              Retry
            </button>
          ) : null}
          {acts && !ENDED.has(status) ? (
            <button
              type="button"
              class="danger"
              disabled={!!busy}
              onClick={() => void act('cancel', () => api().cancel(runId, 'from the dashboard'))}
            >
              Cancel
            </button>
          ) : null}
          {acts && ENDED.has(status) ? (
            <button
              type="button"
              class="danger"
              disabled={!!busy}
              ref={deleteButton}
              aria-expanded={deleting}
              onClick={() => setDeleting((d) => !d)}
            >
              Delete
            </button>
          ) : null}
        </div>
      </div>
      <p class="sr-only" role="status" data-run-announcement>
        {announcement}
      </p>
      <p class="run-id muted">
        <code>{runId}</code>
        <ParentRun run={run} /> · <a href={href.runs()}>all runs</a>
      </p>
      {deleting && acts && ENDED.has(status) ? (
        <DeleteRun
          runId={runId}
          opener={deleteButton}
          onKeep={() => {
            setDeleting(false);
            deleteButton.current?.focus();
          }}
        />
      ) : null}
      {waitingApproval ? <DecisionComment value={comment} onInput={setComment} disabled={!!busy} /> : null}
      {live.reconnecting ? (
        <p class="connection" role="status">
          Connection lost — reconnecting… <span class="muted">(showing the run as last seen)</span>
        </p>
      ) : null}
      <ErrorAlert text={live.error} />
      <ErrorAlert text={message} />
      {waitingApproval && modifying && run?.plan && !('$elided' in run.plan) ? (
        <ModifyPlan
          plan={run.plan}
          limits={limitsOf(live.events)}
          opener={modifyButton}
          onClose={() => {
            setModifying(false);
            modifyButton.current?.focus();
          }}
          // Not through act(): a refusal (422 with findings, 409) goes back to the editor, which stays
          // open with the edits and lists the findings.
          onSend={async (plan) => {
            setBusy('modify');
            setMessage(null);
            try {
              await api().modify(runId, { plan, comment: 'modified in the dashboard' });
            } catch (e) {
              // As act() does: read the run again. Decided elsewhere, it no longer waits for approval
              // and the editor (with the refusal in it) goes away: the page says why instead.
              const now = await live.refresh();
              if (now && now.status !== 'awaiting_approval') setMessage(errorText(e));
              throw e;
            } finally {
              setBusy(null);
            }
            setModifying(false);
            live.restart();
            // The editor, and the button pressed in it, are gone: focus to the heading, not the page's start.
            requestAnimationFrame(() => {
              const now = document.activeElement;
              if (!now || now === document.body || !now.isConnected) heading.current?.focus();
            });
          }}
        />
      ) : null}
      {waitingInput && view.waiting?.kind === 'input' ? (
        <InputForm
          key={request?.seq}
          prompt={view.waiting.prompt}
          {...(asked?.status === 'failed' ? { failedStep: asked.id } : {})}
          disabled={!!busy && busy !== 'input'}
          // The run is not over: the events go on arriving, so nothing is followed again.
          // The answer to the question shown: a 409 if someone answered first, not new information.
          onSend={(input) =>
            act('input', () => api().sendInput(runId, input, { stepId: view.waiting?.step_id }))
          }
        />
      ) : null}
      {ENDED.has(status) && view.final_output !== undefined ? (
        <FinalOutput value={run?.final_output ?? view.final_output} />
      ) : null}
      <RunOutcome status={status} error={view.error} ending={ending} />
      {view.notices.map((n) => (
        <p key={n.code} class="outcome notice" data-notice={n.code} role="status">
          <code class="code">{n.code}</code> {n.message}
        </p>
      ))}
      <nav class="tabs" role="tablist">
        {TABS.map(([id, label]) => (
          <a
            key={id}
            role="tab"
            aria-selected={tab === id}
            class={tab === id ? 'active' : ''}
            href={href.run(runId, id)}
          >
            {label}
          </a>
        ))}
      </nav>
      {tab === 'graph' ? (
        <div class="graph-view">
          <Dag
            steps={steps}
            inferred={inferred}
            critical={view.critical_path}
            selected={selected}
            onSelect={(id) => {
              setSelected(id);
              revealStepPanel();
            }}
          />
          {step ? (
            <StepPanel
              step={step}
              run={run}
              failedDependency={step.status === 'skipped' ? failedDependency(step.id) : null}
              onRetry={
                acts && ENDED.has(status) && !view.unapproved
                  ? (id) => void act('retry', () => api().retry(runId, id), true)
                  : undefined
              }
            />
          ) : (
            <aside class="step-panel muted">Click a step for its inputs, output and attempts.</aside>
          )}
        </div>
      ) : null}
      {tab === 'graph' && waitingApproval ? (
        // Every step's parameters at once, to read before approving (not one node at a time); gone
        // once the run is decided, when the graph's colours and the step panel tell what each step did.
        <section class="approve-steps" aria-labelledby="approve-steps-title">
          <h2 id="approve-steps-title">
            {steps.length} {steps.length === 1 ? 'step' : 'steps'} to approve
          </h2>
          <PlanSteps steps={steps.map((s) => s.planned)} inferred={inferred} selected={selected} />
        </section>
      ) : null}
      {tab === 'timeline' ? <Timeline view={view} now={now} /> : null}
      {tab === 'events' ? <EventLog events={live.events} /> : null}
      {tab === 'versions' ? (
        <Versions
          runId={runId}
          current={view.plan_version}
          // The API rolls back while the run plans, waits or runs, or after it failed or was aborted.
          canRollBack={acts && !['completed', 'cancelled'].includes(status)}
          ended={ENDED.has(status) ? status : null}
          onChanged={() => {
            setMessage(null);
            live.restart();
          }}
        />
      ) : null}
      {tab === 'planning' ? (
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
          <Reasoning events={live.events} />
          <h2>LLM attempts</h2>
          <PlanningAttempts
            runId={runId}
            // Read again when the run gets a plan version, or its planning ends (failed, or planned).
            refreshKey={`${view.plan_version}:${status}:${view.versions.length}`}
            planning={status === 'planning' || streaming}
            planningFailed={run?.error?.code === 'planning_failed'}
          />
          <p class="muted">
            Run total: {run?.token_usage.prompt_tokens ?? 0} prompt +{' '}
            {run?.token_usage.completion_tokens ?? 0} completion tokens · {run?.revision_count ?? 0} revisions
          </p>
        </section>
      ) : null}
    </main>
  );
}

/** The run's final output, open when it is short. */
function FinalOutput({ value }: { value: unknown }) {
  const text = useMemo(() => jsonText(value), [value]);
  return (
    <details class="final" open={text.length < 600}>
      <summary>Final output ({text.length.toLocaleString()} characters)</summary>
      <JsonBlock text={text} file="final-output.json" />
    </details>
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

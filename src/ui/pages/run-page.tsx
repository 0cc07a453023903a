/**
 * One run, live: status and the actions it allows (Approve / Reject / Modify while it waits for
 * approval, a form while it waits for input, Retry, Cancel), then the graph with the selected step's
 * details (and, while it waits for approval, every step's parameters in a table), the timeline of
 * attempts, the event log, the plan versions and the planning trace.
 *
 * This file lays the page out; what the run is now comes from run-status.ts, what it allows and the
 * actions under way from use-run-actions.ts, and each section is a component of its own.
 */
import { useMemo, useRef, useState } from 'preact/hooks';
import { approvalDeadlineText, runTimeOf, runTimeText } from '../../client';
import { api } from '../api';
import { EventLog } from '../components/event-log';
import { InputForm } from '../components/input-form';
import { inputOf, limitsOf, ModifyPlan } from '../components/modify-plan';
import { RunOutcome } from '../components/run-outcome';
import { ApprovalNote } from '../components/approval-note';
import { DecisionComment } from '../components/decision-comment';
import { NameField } from '../components/name-field';
import { approverOf } from '../approver-name';
import { ApprovalChanges } from '../components/approval-changes';
import { DeleteRun } from '../components/delete-run';
import { Timeline } from '../components/timeline';
import { Versions } from '../components/versions';
import { href } from '../router';
import { useRun } from '../use-run';
import { ErrorAlert } from '../components/error-alert';
import { ParentRun } from '../components/parent-run';
import { runStatusNow } from '../run-status';
import { useRunActions } from '../use-run-actions';
import { useStatusAnnouncement } from '../use-status-announcement';
import { useClock } from '../use-clock';
import { RunTitle } from '../components/run-title';
import { RunActionButtons } from '../components/run-actions';
import { MissingRun } from '../components/missing-run';
import { RunConnection } from '../components/run-connection';
import { FinalOutput } from '../components/final-output';
import { RunInput } from '../components/run-input';
import { RunTabs } from '../components/run-tabs';
import { GraphTab } from '../components/graph-tab';
import { PlanningTab } from '../components/planning-tab';

export function RunPage({ runId, tab }: { runId: string; tab: string }) {
  const live = useRun(runId);
  const { view, run } = live;
  const now = runStatusNow(live, runId);
  const { status, ended, acts, waitingApproval, waitingInput, streaming } = now;
  const [selected, setSelected] = useState<string | null>(null);
  // Where focus goes after an action: the button pressed goes away once the run moves on (Approve once
  // approved, Cancel once cancelled), and focus with it to the page's start.
  const heading = useRef<HTMLHeadingElement>(null);
  const actions = useRunActions(runId, live, now, heading);
  const { busy, message, act } = actions;
  const clock = useClock(!ended);
  // How long it ran and, apart, how long it waited for a person (ticking while it goes on).
  // Not while it replays the run's past: its events so far end nowhere, and "7 min running" was said
  // of a run that ran for a second, ticking on until the replay reached its end.
  const spent = live.caughtUp ? runTimeText(runTimeOf(live.events, clock)) : null;
  const announcement = useStatusAnnouncement(now);
  const runInput = inputOf(live.events);
  // None shown for a run given none (its input is `{}`).
  const givenInput = useMemo(
    () => runInput !== undefined && !['null', '{}'].includes(JSON.stringify(runInput.value ?? null)),
    [runInput?.value],
  );

  // What the version awaiting approval changes since the approved one — the snapshot's, once it is
  // the snapshot of that version (it is read again when the approval is asked for).
  const pending = run?.pending_approval;
  const asked =
    pending && view.waiting?.kind === 'approval' && pending.plan_version === view.waiting.plan_version
      ? pending
      : null;
  const changes = asked?.changes ?? null;
  // When the decision is due, and what happens then if nobody decides (approval.default_action).
  const deadline = asked ? approvalDeadlineText(asked) : null;

  if (live.missing) return <MissingRun runId={runId} seen={now.known} />;

  const connection = (
    <RunConnection
      reconnecting={live.reconnecting}
      answered={live.answered}
      polling={live.polling}
      known={now.known}
    />
  );
  const title = (
    <RunTitle
      now={now}
      planVersion={view.plan_version}
      tokens={run?.token_usage.total_tokens}
      headingRef={heading}
      readFailed={live.error !== null}
    />
  );

  // Nothing of the run read yet (a slow link, a refused token): no tabs of a run not known, whose
  // empty graph said "No plan yet." of a run awaiting approval. The page says why when it failed.
  if (!now.known)
    return (
      <main class="run-page" aria-busy={live.error === null && !live.reconnecting}>
        <div class="toolbar">{title}</div>
        <p class="run-id muted">
          <code>{runId}</code> · <a href={href.runs()}>all runs</a>
        </p>
        {connection}
        <ErrorAlert text={live.error} />
      </main>
    );

  return (
    // Busy while it reads the run's past up to its snapshot (assistive technology waits it out).
    <main class="run-page" aria-busy={!acts}>
      <div class="toolbar">
        {title}
        <RunActionButtons
          runId={runId}
          waitingApproval={waitingApproval}
          planVersion={view.plan_version}
          actions={actions}
        />
      </div>
      <p class="sr-only" role="status" data-run-announcement>
        {announcement}
      </p>
      <p class="run-id muted">
        <code>{runId}</code>
        <ParentRun run={run} /> · <a href={href.runs()}>all runs</a>
      </p>
      {spent ? (
        <p class="run-time muted" data-run-time>
          {spent}
        </p>
      ) : null}
      {actions.deleting && actions.offers.delete ? (
        <DeleteRun
          runId={runId}
          opener={actions.deleteButton}
          onKeep={() => {
            actions.setDeleting(false);
            actions.deleteButton.current?.focus();
          }}
        />
      ) : null}
      {waitingApproval && changes ? <ApprovalChanges changes={changes} /> : null}
      {waitingApproval && deadline ? (
        <p class="approval-deadline muted" data-approval-deadline={asked?.default_action}>
          {deadline}
        </p>
      ) : null}
      {waitingApproval ? (
        <DecisionComment
          value={actions.comment}
          onInput={actions.setComment}
          name={actions.approver}
          onName={actions.setApprover}
          disabled={!!busy}
        />
      ) : null}
      {connection}
      <ErrorAlert text={live.error} />
      <ErrorAlert text={message} />
      {waitingApproval && actions.modifying && run?.plan && !('$elided' in run.plan) ? (
        <ModifyPlan
          plan={run.plan}
          limits={limitsOf(live.events)}
          input={runInput}
          opener={actions.modifyButton}
          onClose={() => {
            actions.setModifying(false);
            actions.modifyButton.current?.focus();
          }}
          onSend={actions.sendModified}
        />
      ) : null}
      {waitingInput && view.waiting?.kind === 'input' ? (
        <InputForm
          key={now.request?.seq}
          prompt={view.waiting.prompt}
          schema={view.waiting.schema}
          // When it is due and what happens then if nobody answers (a human.input step's question).
          due={view.waiting}
          {...(now.asked?.status === 'failed' ? { failedStep: now.asked.id } : {})}
          disabled={!!busy && busy !== 'input'}
          who={
            <NameField name={actions.approver} onName={actions.setApprover} what="answer" disabled={!!busy} />
          }
          // The run is not over: the events go on arriving, so nothing is followed again.
          // The answer to the question shown: a 409 if someone answered first, not new information.
          onSend={(input) =>
            act('input', () =>
              api().sendInput(runId, input, {
                stepId: view.waiting?.step_id,
                // This question's, not a later one's: refused (question_closed) once it is answered.
                questionSeq: view.waiting?.question_seq,
                ...approverOf(actions.approver),
              }),
            )
          }
        />
      ) : null}
      {givenInput ? <RunInput value={runInput?.value} deciding={waitingApproval} /> : null}
      {ended && view.final_output !== undefined ? (
        <FinalOutput value={run?.final_output ?? view.final_output} />
      ) : null}
      <RunOutcome status={status} error={view.error} ending={now.ending} />
      <ApprovalNote view={view} />
      {view.notices.map((n) => (
        <p key={n.code} class="outcome notice" data-notice={n.code} role="status">
          <code class="code">{n.code}</code> {n.message}
        </p>
      ))}
      <RunTabs runId={runId} tab={tab} />
      {tab === 'graph' ? (
        <GraphTab
          steps={now.steps}
          replaced={view.replaced}
          versions={view.versions}
          inferred={now.inferred}
          critical={view.critical_path}
          run={run}
          selected={selected}
          onSelect={setSelected}
          waitingApproval={waitingApproval}
          changes={changes}
          onRetry={
            actions.offers.stepRetry
              ? (id) => void act('retry', () => api().retry(runId, id), true)
              : undefined
          }
        />
      ) : null}
      {tab === 'timeline' ? <Timeline view={view} now={clock} /> : null}
      {tab === 'events' ? <EventLog events={live.events} /> : null}
      {tab === 'versions' ? (
        <Versions
          runId={runId}
          current={view.plan_version}
          canRollBack={actions.offers.rollBack}
          ended={ended ? status : null}
          onChanged={() => {
            actions.setMessage(null);
            live.restart();
          }}
        />
      ) : null}
      {tab === 'planning' ? (
        <PlanningTab
          runId={runId}
          view={view}
          run={run}
          events={live.events}
          status={status}
          streaming={streaming}
        />
      ) : null}
    </main>
  );
}

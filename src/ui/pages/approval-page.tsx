/**
 * The approval link's page (no API token): the plan, its estimates and graph, and Approve / Reject /
 * Modify, each sent once with the link's token.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import {
  EdgeplanApiError,
  emptyView,
  applyEvent,
  estimateText,
  utcMinute,
  type Plan,
  type RunEvent,
} from '../../client';
import { api, errorText } from '../api';
import { Dag } from '../components/dag';
import { DecisionComment } from '../components/decision-comment';
import { ApprovalChanges } from '../components/approval-changes';
import { approverOf, useApproverName } from '../approver-name';
import { ModifyPlan } from '../components/modify-plan';
import { ApproveSteps } from '../components/approve-steps';
import { ErrorAlert } from '../components/error-alert';
import type { ApprovalData } from '../page-inputs';
import { visibleText } from '../visible-text';
import { standInOf } from '../../plan/input-shape';

/**
 * What a `410 gone` says: the link is dead (used, expired, its run decided or ended, a newer version
 * asked about) — nothing sent with it again can work, so the page says so instead of its controls.
 */
function goneText(err: unknown): string | null {
  return err instanceof EdgeplanApiError && err.status === 410 ? err.message : null;
}

export function ApprovalPage({ data }: { data: ApprovalData }) {
  const [outcome, setOutcome] = useState<string | null>(null);
  // The link died while the page was open (someone else decided, the deadline passed): its account.
  const [gone, setGone] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [modifying, setModifying] = useState(false);
  const modifyButton = useRef<HTMLButtonElement>(null);
  const [comment, setComment] = useState('');
  const [approver, setApprover] = useApproverName();
  const [selected, setSelected] = useState<string | null>(null);
  // The run's input as the page knows it — kinds, not values — stood in for the input when an edit
  // is checked: the same findings the API gives, the input never sent here. One object, made once:
  // the editor checks again when it changes.
  const input = useMemo(
    () =>
      data.input_shape === undefined ? undefined : { value: standInOf(data.input_shape), kindsOnly: true },
    [data.input_shape],
  );
  // The plan as a graph: the same fold as a live run, from the one event that carries a plan.
  const view = applyEvent(emptyView(data.run_id), {
    seq: 1,
    event_type: 'PlanAuthored',
    timestamp: new Date().toISOString(),
    payload: { plan: data.plan },
    references: { plan_id: data.plan.id ?? null, plan_version: data.plan.version ?? null },
  } as RunEvent);

  // A decision in flight: set at once (a double click's second event comes before the next render),
  // so the link's single-use token is sent once; `busy` disables the buttons meanwhile.
  const inFlight = useRef(false);
  const [busy, setBusy] = useState(false);
  // The buttons go once the decision is taken: focus, left on the one pressed, goes to what it did
  // (read out on focus), not to the page's start.
  const told = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    const now = document.activeElement;
    if ((outcome || gone) && (!now || now === document.body)) told.current?.focus();
  }, [outcome, gone]);
  /** Sends the decision once; a refused modification is thrown back to the editor, which shows it. */
  const decide = async (decision: 'approve' | 'reject' | 'modify', plan?: Plan) => {
    if (inFlight.current) return;
    inFlight.current = true;
    const from = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    setBusy(true);
    setError(null);
    try {
      const client = api({ anonymous: true });
      const said = comment.trim();
      // The version this page shows: refused, the link unspent, if the run awaits another by now.
      const shown = data.plan.version;
      const named = { ...approverOf(approver), ...(shown === undefined ? {} : { plan_version: shown }) };
      const body =
        decision === 'modify'
          ? { decision, plan: plan!, comment: said || 'modified from the approval link', ...named }
          : { decision, ...(said ? { comment: said } : {}), ...named };
      const r = await client.decide(data.run_id, body, { token: data.token });
      setOutcome(
        decision === 'reject' ? 'Rejected: the run has ended.' : `Approved: the run is ${r.status}.`,
      );
    } catch (e) {
      const dead = goneText(e);
      if (dead !== null) {
        setGone(dead);
        setModifying(false);
        return;
      }
      if (decision === 'modify') throw e;
      setError(errorText(e));
    } finally {
      inFlight.current = false;
      setBusy(false);
      // Refused: focus back on the button pressed (disabled while the decision was out), if it was lost.
      requestAnimationFrame(() => {
        if (document.activeElement === document.body && from?.isConnected) from.focus();
      });
    }
  };

  const e = data.estimates;
  const inferred = data.inferred ?? {};
  const plan = (
    <>
      <Dag
        steps={view.steps}
        inferred={inferred}
        critical={e.critical_path.steps}
        selected={selected}
        onSelect={setSelected}
      />
      <ApproveSteps
        steps={data.plan.steps}
        kept={new Map(Object.entries(data.kept ?? {}))}
        inferred={inferred}
        selected={selected}
        changes={data.changes ?? null}
        asked={outcome !== null || gone !== null}
      />
    </>
  );
  return (
    <main class="approval">
      <h1>
        {gone
          ? 'This approval link no longer works'
          : data.changes
            ? `Approve version ${data.changes.plan_version} of this plan?`
            : 'Approve this plan?'}
      </h1>
      <p class="goal" dir="auto">
        {visibleText(data.goal)}
      </p>
      <p class="muted">
        Run <code>{data.run_id}</code> · {estimateText(e)} · up to {e.max_width} at once
        {e.estimated_tokens ? ` · ~${e.estimated_tokens} tokens` : ''}
        {/* UTC, as the rest of the dashboard says times (a locale's date without a zone is ambiguous). */}
        {gone ? '' : ` · link valid until ${utcMinute(new Date(data.expires_at).toISOString())}`}
      </p>
      {data.changes && !gone ? <ApprovalChanges changes={data.changes} /> : null}
      {outcome ? (
        <p class="ok" role="status" ref={told} tabindex={-1}>
          {outcome} This link cannot be used again.
        </p>
      ) : gone ? (
        <p class="gone" role="status" ref={told} tabindex={-1}>
          {gone}
        </p>
      ) : (
        <DecisionComment
          value={comment}
          onInput={setComment}
          name={approver}
          onName={setApprover}
          disabled={busy}
        />
      )}
      {outcome || gone ? null : (
        <div class="toolbar">
          <button type="button" class="primary" disabled={busy} onClick={() => void decide('approve')}>
            Approve
          </button>
          <button type="button" disabled={busy} onClick={() => void decide('reject')}>
            Reject
          </button>
          <button
            type="button"
            disabled={busy}
            ref={modifyButton}
            aria-expanded={modifying}
            onClick={() => setModifying((m) => !m)}
          >
            Modify
          </button>
        </div>
      )}
      <ErrorAlert text={error} />
      {modifying && !outcome && !gone ? (
        // As on the run page: sent only once the editor finds the plan valid; a refusal keeps the edits.
        <ModifyPlan
          plan={data.plan}
          limits={data.limits}
          input={input}
          anonymous
          onSend={(plan) => decide('modify', plan)}
          opener={modifyButton}
          onClose={() => {
            setModifying(false);
            modifyButton.current?.focus();
          }}
        />
      ) : null}
      {gone ? (
        // The link died while open: the plan below is what it asked about then, not one that awaits.
        <section class="asked-before" data-asked-before aria-labelledby="asked-before">
          <h2 id="asked-before">
            What this link asked about
            {data.plan.version === undefined ? '' : ` (plan version ${data.plan.version})`}, as it was then
          </h2>
          <p class="muted">Not awaiting a decision here: the run may have another plan by now.</p>
          {data.changes ? <ApprovalChanges changes={data.changes} /> : null}
          {plan}
        </section>
      ) : (
        plan
      )}
    </main>
  );
}

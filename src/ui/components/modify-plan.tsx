/**
 * The run page's "Modify" form: the plan awaiting approval in the plan editor, checked against the
 * run's own limits as you type, sent as the approver's modified plan.
 */
import { useState } from 'preact/hooks';
import type { RunEvent } from '../../client';
import { errorText, findingsOf } from '../api';
import { PlanEditor, type ValidationLimits } from './plan-editor';

/** The run's own validation limits, from its RunCreated event (the editor would apply the defaults). */
export function limitsOf(events: readonly RunEvent[]): ValidationLimits | undefined {
  const created = events.find((e) => e.event_type === 'RunCreated');
  if (created?.event_type !== 'RunCreated') return undefined;
  const { max_steps, max_depth, token_budget, require_fallbacks } = created.payload.config;
  return { max_steps, max_depth, token_budget, require_fallbacks };
}

export function ModifyPlan({
  plan,
  limits,
  onSend,
}: {
  plan: unknown;
  limits: ValidationLimits | undefined;
  onSend: (plan: never) => Promise<void>;
}) {
  const [text, setText] = useState(() => JSON.stringify(plan, null, 2));
  const [valid, setValid] = useState(false);
  const [sending, setSending] = useState<string | null>(null);
  const send = async () => {
    try {
      await onSend(JSON.parse(text) as never);
    } catch (e) {
      const f = findingsOf(e);
      setSending(f.length ? f.map((x) => x.message).join('; ') : errorText(e));
    }
  };
  return (
    <section class="modify" aria-label="Modify the plan">
      <PlanEditor
        text={text}
        onText={setText}
        label="The plan to approve instead"
        limits={limits}
        onChecked={(c) => setValid(!!c.result?.valid)}
      />
      {sending ? <p class="error">{sending}</p> : null}
      <button type="button" class="primary" disabled={!valid} onClick={() => void send()}>
        Approve modified plan
      </button>
    </section>
  );
}

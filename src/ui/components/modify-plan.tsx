/**
 * The run page's "Modify" form: the plan awaiting approval in the plan editor, checked against the
 * run's own limits and input as you type, sent as the approver's modified plan. "Discard edits" or Escape closes
 * it, the edits dropped, focus back on the Modify button that opened it.
 */
import type { RefObject } from 'preact';
import { useRef, useState } from 'preact/hooks';
import type { Plan, RunEvent } from '../../client';
import { findingsOf, refusalText } from '../api';
import { modifiedPlanOf } from '../page-inputs';
import { useEscape } from '../use-escape';
import { FindingList, PlanEditor, type Finding, type ValidationLimits } from './plan-editor';
import { visibleJson } from '../visible-text';

/** The run's RunCreated payload; none when it was too large to send (its payload elided). */
function createdOf(events: readonly RunEvent[]) {
  const created = events.find((e) => e.event_type === 'RunCreated');
  if (created?.event_type !== 'RunCreated' || '$elided' in created.payload) return undefined;
  return created.payload;
}

/** The run's own validation limits, from its RunCreated event (the editor would apply the defaults). */
export function limitsOf(events: readonly RunEvent[]): ValidationLimits | undefined {
  const created = createdOf(events);
  if (!created) return undefined;
  const { max_steps, max_depth, token_budget, require_fallbacks } = created.config;
  return { max_steps, max_depth, token_budget, require_fallbacks };
}

/**
 * The run's input, boxed, from its RunCreated event: the API holds an edit's whole `{{ input.… }}`
 * references to it, so the editor checks them too rather than saying "Valid" to a plan it refuses.
 */
export function inputOf(events: readonly RunEvent[]): { value: unknown } | undefined {
  const created = createdOf(events);
  return created ? { value: created.input } : undefined;
}

export function ModifyPlan({
  plan,
  limits,
  input,
  anonymous = false,
  onSend,
  onClose,
  opener,
}: {
  plan: unknown;
  limits: ValidationLimits | undefined;
  /**
   * The run's input, when known: checked as the API checks it (on the approval link's page, a
   * stand-in of the same shape, input-shape.ts).
   */
  input?: { value: unknown; kindsOnly?: boolean } | undefined;
  /** The approval link's page: validated with no API token. */
  anonymous?: boolean;
  /** Sends the plan; a refusal it throws (422 findings, 409) is shown here, the edits kept. */
  onSend: (plan: Plan) => Promise<void>;
  /** Closes the editor, nothing sent (the caller puts focus back on `opener`). */
  onClose: () => void;
  /** The Modify button: Escape pressed on it closes the editor too. */
  opener: RefObject<HTMLButtonElement | null>;
}) {
  // Hidden characters as \u escapes: the editor shows them, and JSON.parse sends the plan unchanged.
  const [text, setText] = useState(() => visibleJson(planText(plan)));
  const [valid, setValid] = useState(false);
  const [sending, setSending] = useState(false);
  const [refusal, setRefusal] = useState<{ message: string; findings: Finding[] } | null>(null);
  const section = useRef<HTMLElement>(null);
  // Not while the plan is out: its answer decides whether the editor stays (refused) or goes.
  useEscape(!sending, onClose, [section, opener]);
  const send = async () => {
    setSending(true);
    setRefusal(null);
    const plan = modifiedPlanOf(text);
    if (!plan.ok) {
      setRefusal({ message: plan.error, findings: [] });
      return setSending(false);
    }
    try {
      await onSend(plan.value);
    } catch (e) {
      setRefusal({ message: refusalText(e), findings: findingsOf(e) });
    }
    setSending(false);
  };
  return (
    <section class="modify" aria-label="Modify the plan" ref={section}>
      <PlanEditor
        text={text}
        onText={(t) => {
          setText(t);
          setRefusal(null);
        }}
        label="The plan to approve instead"
        limits={limits}
        input={input}
        anonymous={anonymous}
        onChecked={(c) => setValid(!!c.result?.valid)}
      />
      {refusal ? (
        <div class="refusal" role="alert">
          <p class="error">Not sent — {refusal.message}</p>
          {refusal.findings.length ? <FindingList findings={refusal.findings} /> : null}
        </div>
      ) : null}
      <div class="actions">
        <button type="button" class="primary" disabled={!valid || sending} onClick={() => void send()}>
          Approve modified plan
        </button>
        <button type="button" disabled={sending} onClick={onClose} aria-keyshortcuts="Escape">
          Discard edits
        </button>
      </div>
    </section>
  );
}

/** Plans of more steps than this are written a step a line in the editor. */
const LINE_A_STEP_FROM = 200;

/**
 * The plan as the editor's text: indented, or for a big plan each step on a line of its own. A
 * textarea lays out every line it holds: a 10,000-step plan indented was 90,000 lines (180,000 nodes
 * in the text area, 2 s to open), a step a line is 10,000.
 */
export function planText(plan: unknown): string {
  const steps = (plan as { steps?: unknown } | null)?.steps;
  if (!Array.isArray(steps) || steps.length <= LINE_A_STEP_FROM) return JSON.stringify(plan, null, 2);
  const rest = Object.fromEntries(Object.entries(plan as object).filter(([k]) => k !== 'steps'));
  const head = JSON.stringify(rest, null, 2).slice(0, -1).trimEnd();
  const lines = steps.map((s) => `    ${JSON.stringify(s)}`).join(',\n');
  return `${head}${head === '{' ? '' : ','}\n  "steps": [\n${lines}\n  ]\n}`;
}

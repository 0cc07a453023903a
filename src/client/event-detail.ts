/**
 * What one event says, in a line of words after its type and step — why a plan changed, who approved
 * and with what comment, an attempt's outcome, a fallback's tool, a skip's reason — or `` when its type
 * and step say it all. The terminal's event lines and the dashboard's event log show the same words.
 * @example eventDetail(toolReturnedEvent) // 'error demo_flaky 98ms'
 */
import { namedText, unnamedDecisionWords } from './name-source-text';
import { waitedAsAsked } from './retry-after';
import type { RunEvent } from './types';
import { clipText } from '../text-cut';

/** `1.2s`, `950ms`, `2m03s`. */
function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const m = Math.floor(ms / 60_000);
  return `${m}m${String(Math.floor((ms % 60_000) / 1000)).padStart(2, '0')}s`;
}
const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

export function eventDetail(e: RunEvent): string {
  switch (e.event_type) {
    case 'ToolInvoked':
      return `${e.payload.tool} attempt ${e.payload.attempt}`;
    case 'ToolReturned':
      return (
        `${e.payload.success ? 'ok' : `error ${e.payload.error?.code ?? ''}`} ${Math.round(e.payload.latency_ms)}ms` +
        (e.payload.after_run_ended ? ' — after the run ended (the tool ran; the result is kept)' : '')
      );
    case 'StepRedispatched':
      return `→ ${e.payload.dispatch} after ${duration(e.payload.waited_ms)}: ${e.payload.error.code}: ${e.payload.error.message}`;
    case 'StepFailed':
      return `${e.payload.error.code}: ${e.payload.error.message}`;
    case 'StepRetried': {
      // When, and whether the wait was the tool's service's asking rather than the run's backoff.
      const { attempt, delay_ms, error } = e.payload;
      const asked = waitedAsAsked(e.payload) ? ' (Retry-After)' : '';
      return `attempt ${attempt} in ${duration(delay_ms)}${asked} — ${error.code}: ${error.message}`;
    }
    case 'StepSkipped':
      return e.payload.detail ? `${e.payload.reason}: ${e.payload.detail}` : e.payload.reason;
    case 'StepScheduled':
      // A fallback is another tool than the step's: which one runs is the news.
      return e.payload.fallback ? `fallback ${e.payload.action} attempt ${e.payload.attempt}` : '';
    case 'RunCreated':
      // A plan submitted without a goal has none to say (not a dangling "goal: ").
      return e.payload.goal ? `goal: ${e.payload.goal}` : 'a plan without a goal';
    case 'RevisionRequested':
      return `${e.payload.trigger} → ${e.payload.strategy}${e.payload.deferred ? ' (after the plan streams in)' : ''}: ${e.payload.reason}`;
    case 'ApprovalRequested':
      return `plan v${e.payload.plan_version}${e.payload.deadline_at === null ? '' : `, decided by ${new Date(e.payload.deadline_at).toISOString().slice(0, 19)}Z`}`;
    case 'ApprovalGranted':
    case 'ApprovalRejected':
      // Who decided (a person, or the deadline's default), their name and how it was established,
      // and what they said.
      return (
        `by ${e.payload.by}` +
        (e.payload.approver
          ? ` ${namedText(e.payload.approver, e.payload.approver_via)}`
          : unnamedDecisionWords(e.payload.approver_via)
            ? ` (${unnamedDecisionWords(e.payload.approver_via)})`
            : '') +
        (e.payload.comment ? `: ${e.payload.comment}` : '')
      );
    case 'InputReceived':
      // Who answered: behind Cloudflare Access the signed-in identity, else the name they gave.
      return (
        `answer: ${clipText(JSON.stringify(e.payload.input) ?? 'null', 200)}` +
        (e.payload.answered_by
          ? ` — answered by ${namedText(e.payload.answered_by, e.payload.answered_by_via)}`
          : '')
      );
    case 'RunResumed':
      return `reopens ${e.payload.step_ids.join(', ')}`;
    case 'PlanAuthored':
      return `${plural(e.payload.plan.steps.length, 'step')} (v${e.payload.plan.version ?? e.references.plan_version ?? '?'})`;
    case 'PlanUpdated':
      // Why the plan changed: the failed step a revision replaces, the approver's comment.
      return `${plural(e.payload.plan.steps.length, 'step')} (v${e.payload.plan.version ?? e.references.plan_version ?? '?'}, ${e.payload.kind}): ${e.payload.reason}`;
    case 'ApprovalWebhookAttempted': {
      const { attempt, ok, status, error, next_attempt_at } = e.payload;
      const outcome = ok
        ? `delivered (${status ?? 'ok'})`
        : `failed: ${[status, error].filter((x) => x !== undefined).join(' ') || 'no answer'}`;
      // The time alone when it falls on the event's day; hourly retries go on for days.
      const then = next_attempt_at === null ? '' : new Date(next_attempt_at).toISOString();
      const again = ok
        ? ''
        : next_attempt_at === null
          ? '; not sent again'
          : `; again at ${then.slice(0, 10) === e.timestamp.slice(0, 10) ? then.slice(11, 19) : `${then.slice(0, 10)} ${then.slice(11, 19)}`}`;
      return `attempt ${attempt} ${outcome}${again}`;
    }
    case 'RunTerminated': {
      // The reason is a code (`planning_failed`); the error says what happened.
      // A limit that stopped the turns is said too: a `success` it cut short is not the model's.
      const message = e.payload.error?.message ?? e.payload.limit?.message;
      return `${e.payload.status}: ${e.payload.reason}${message && message !== e.payload.reason ? ` — ${message}` : ''}`;
    }
    case 'InputRequested':
      return e.payload.prompt ?? e.payload.reason;
    case 'ThoughtAdded':
      return `turn ${e.payload.turn}: ${e.payload.thought}${e.payload.step_id ? ` → ${e.payload.step_id}` : ' → done'}`;
    case 'StageStarted':
      return `${e.payload.stage}${e.payload.rewind ? ' (rewind)' : ''}${e.payload.rule ? ` when ${e.payload.rule}` : ''}`;
    case 'StageCompleted':
      return e.payload.stage;
    default:
      return '';
  }
}

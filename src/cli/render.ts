/**
 * Text of the run views. `renderLive` is the TTY view, redrawn in place: every step with a status
 * symbol (a spinner while it runs), attempts, elapsed time, the critical path marked, then the final
 * output or the error. `eventLine` is the plain view: one line per event, for pipes and logs.
 */
import {
  approvedVersion,
  editedText,
  decidedText,
  replacedStatus,
  replacedText,
  type RunEvent,
} from '../client';
import { eventDetail } from '../client/event-detail';
import { inputDeadlineShort } from '../client/input-deadline-text';
import { attemptText } from '../client/attempt-text';
import type { ReplacedStep, RunView, StepView } from '../client/run-view';
import { runTimeAt, runTimeText } from '../client/run-time';
import { oneLine, ownColour, terminalText } from './terminal-text';
import { clip, padEnd, textWidth } from './text-width';

type Paint = (s: string) => string;
export type Style = { green: Paint; red: Paint; yellow: Paint; cyan: Paint; dim: Paint; bold: Paint };

// Marked as the CLI's own: terminalText writes out a colour in other people's text.
const paint = (code: number) => (s: string) => `${ownColour(code)}${s}${ownColour(0)}`;
export const COLOR: Style = {
  green: paint(32),
  red: paint(31),
  yellow: paint(33),
  cyan: paint(36),
  dim: paint(2),
  bold: paint(1),
};
const id = (s: string) => s;
export const PLAIN: Style = { green: id, red: id, yellow: id, cyan: id, dim: id, bold: id };

export const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** `1.2s`, `950ms`, `2m03s`. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const m = Math.floor(ms / 60_000);
  return `${m}m${String(Math.floor((ms % 60_000) / 1000)).padStart(2, '0')}s`;
}

function symbol(s: StepView, frame: number, c: Style): string {
  switch (s.status) {
    case 'completed':
      return c.green('✔');
    case 'failed':
      return c.red('✖');
    case 'skipped':
      return c.dim('⊘');
    case 'running':
      return c.cyan(SPINNER[frame % SPINNER.length]!);
    case 'retrying':
      return c.yellow('↻');
    case 'interrupted':
      return c.yellow('◌');
    default:
      return c.dim('○');
  }
}

/**
 * Where a child run came from: `child of run_… (step research)`, or null for a run no step started
 * (and for one whose server predates parents: no field at all).
 * @example parentLine({ parent_run_id: 'run_a', parent_step_id: 'go' }) // 'child of run_a (step go)'
 */
export function parentLine(run: { parent_run_id?: string | null; parent_step_id?: string | null }) {
  if (!run.parent_run_id) return null;
  return `child of ${run.parent_run_id}${run.parent_step_id ? ` (step ${run.parent_step_id})` : ''}`;
}

/** `1 step`, `3 steps`. */
export const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/**
 * Other people's text (a goal, an error, a comment) cut to `columns` as it is printed: on one line, its
 * escapes written out — cut before, a line break split a step's row and a `\u001b`, measured as nothing,
 * printed six columns wide and wrapped the line.
 */
const cut = (s: string, columns: number) => clip(terminalText(oneLine(s)), columns);

/** A frame's step columns, measured once a frame (per row, a 10,000-step frame cost 10,000²). */
type Columns = { idWidth: number; actionWidth: number; onPath: ReadonlySet<string> };

function columnsOf(view: RunView): Columns {
  let [idWidth, actionWidth] = [4, 6];
  for (const x of view.steps) {
    // As printed: a control character is written out (terminalText) and takes the columns of its escape.
    idWidth = Math.max(idWidth, textWidth(terminalText(x.id)));
    actionWidth = Math.max(actionWidth, textWidth(terminalText(x.action)));
  }
  return {
    idWidth: Math.min(24, idWidth),
    actionWidth: Math.min(28, actionWidth),
    onPath: new Set(view.critical_path),
  };
}

/**
 * A live frame has a row for every step of a plan of up to LIVE_ROWS steps; of a bigger one, at most
 * BIG_PLAN_ROWS — the steps at work or ended otherwise, then the next — and a line for the rest. A
 * terminal shows a screenful (log-update cuts the rest), and a 10,000-step run showed its first, long
 * finished, steps while the work went on out of sight.
 */
export const LIVE_ROWS = 100;
export const BIG_PLAN_ROWS = 20;

/** The rows of a frame (see LIVE_ROWS), in plan order. */
function shownSteps(steps: readonly StepView[]): readonly StepView[] {
  if (steps.length <= LIVE_ROWS) return steps;
  const active = steps
    .filter((s) => s.status !== 'completed' && s.status !== 'pending')
    .slice(0, BIG_PLAN_ROWS);
  const next = steps.filter((s) => s.status === 'pending').slice(0, BIG_PLAN_ROWS - active.length);
  const kept = new Set([...active, ...next]);
  return steps.filter((s) => kept.has(s));
}

function stepLine(s: StepView, cols: Columns, now: number, frame: number, c: Style, width: number): string {
  const onPath = cols.onPath.has(s.id);
  const { idWidth, actionWidth } = cols;
  const parts = [
    ` ${symbol(s, frame, c)} `,
    (onPath ? c.bold : id)(padEnd(clip(terminalText(s.id), idWidth), idWidth)),
    ' ',
    c.dim(padEnd(clip(terminalText(s.action), actionWidth), actionWidth)),
    ' ',
  ];
  const time =
    s.status === 'running' && s.started_at !== null
      ? duration(Math.max(0, now - s.started_at))
      : s.latency_ms !== null && s.status !== 'pending'
        ? duration(s.latency_ms)
        : '';
  parts.push(time.padStart(7));
  const tries = attemptText(s);
  if (tries) parts.push(c.yellow(` ${tries}`));
  if (s.fallback) parts.push(c.yellow(` fallback ${s.history.at(-1)?.tool ?? ''}`.trimEnd()));
  if (onPath) parts.push(c.dim(' ◆'));
  let tail = '';
  if (s.status === 'failed' || s.status === 'retrying') tail = s.error ?? '';
  if (s.status === 'retrying' && s.next_attempt && s.next_attempt.at > now) {
    const asked = s.next_attempt.retry_after ? ' (Retry-After)' : '';
    tail = `retry in ${duration(s.next_attempt.at - now)}${asked}: ${tail}`;
  }
  if (s.status === 'skipped') tail = s.skip_reason ?? '';
  if (s.status === 'interrupted') tail = 'running when the run ended';
  // Its tool was still running when the run ended, and finished since: it ran, side effects and all.
  if (s.history.at(-1)?.after_run_ended) parts.push(c.yellow(' after the run ended'));
  const line = parts.join('');
  return tail
    ? `${line}  ${(s.status === 'skipped' || s.status === 'interrupted' ? c.dim : c.red)(cut(tail, Math.max(20, width - 60)))}`
    : line;
}

/**
 * The steps later plan versions replaced, under the current plan's: each with what it last did, its
 * attempts and error, and which version replaced it and why — dimmed, so the plan that runs reads first.
 */
export function replacedLines(replaced: readonly ReplacedStep[], c: Style, width = 100): string[] {
  if (replaced.length === 0) return [];
  const idWidth = Math.min(24, Math.max(4, ...replaced.map((r) => textWidth(terminalText(r.id)))));
  const lines = [c.dim(` replaced by a later plan version (${replaced.length}):`)];
  for (const r of replaced) {
    const tries = r.history.length;
    const mark = r.status === 'failed' ? c.red('✖') : r.status === 'completed' ? c.green('✔') : c.dim('○');
    lines.push(
      `   ${mark} ${c.dim(padEnd(clip(terminalText(r.id), idWidth), idWidth))} ${c.dim(replacedStatus(r))}` +
        (tries > 0 ? c.dim(` ×${tries}`) : '') +
        // The error once: a revision's reason usually quotes it.
        (r.error && !r.replaced_by.reason.includes(r.error)
          ? `  ${c.red(cut(r.error, Math.max(20, width - idWidth - 20)))}`
          : ''),
    );
    lines.push(c.dim(`     ${cut(replacedText(r), width * 2)}`));
  }
  return lines;
}

/**
 * What a step's row adds to its error or skip reason: the fallback that ran in its place, and that an
 * earlier plan version's incarnation of it failed (listed under "replaced").
 */
export function stepNote(view: RunView, id: string, note: string): string {
  const s = view.steps.find((x) => x.id === id);
  const last = s?.history.at(-1);
  const parts = [note];
  if (s && last?.fallback) parts.unshift(`via fallback ${last.tool}`);
  const before = view.replaced.filter((r) => r.id === id && r.change === 'rerun');
  if (before.length > 0)
    parts.push(`(run again: ${before.map((r) => `v${r.plan_version ?? '?'} ${r.status}`).join(', ')})`);
  return parts.filter(Boolean).join(' ');
}

/** How the plan was approved or rejected — by whom, with what comment — and what the approver changed. */
export function decisionLines(view: RunView): string[] {
  const lines: string[] = [];
  const a = view.approval;
  const edit = view.versions.find((v) => v.kind === 'approval_edit');
  if (a) {
    const how = decidedText(a);
    const verdict = a.decision === 'granted' ? 'approved' : 'rejected';
    const which = approvedVersion(view);
    lines.push(
      `${which ? `plan${which} ` : ''}${verdict}${how ? ` ${how}` : ''}${a.comment ? `: ${a.comment}` : ''}`,
    );
  }
  // Who edited is the decision line's, not said again: the decision above made the edit unless a
  // later one (a revision's) replaced it — then the edit names its own decider (`when approved by …`).
  if (edit) lines.push(editedText(view));
  return lines;
}

/** The whole live view for this moment. */
export function renderLive(view: RunView, now: number, frame: number, c: Style, width = 100): string {
  // Running and waiting apart, in `edgeplan show`'s words: a run that waited 3 h for its approval
  // did not take 3 h to run.
  const elapsed = runTimeText(runTimeAt(view.clock, now));
  const statusText =
    view.status === 'completed'
      ? c.green(view.status)
      : ['failed', 'aborted', 'cancelled'].includes(view.status)
        ? c.red(view.status)
        : view.status.startsWith('awaiting')
          ? c.yellow(view.status)
          : c.cyan(view.status);
  const cols = columnsOf(view);
  const rows = shownSteps(view.steps);
  const lines = [
    `${c.bold('edgeplan')} ${view.run_id}  ${statusText}  ${c.dim(elapsed)}`,
    view.goal ? c.dim(cut(`goal: ${view.goal}`, width)) : '',
    ...rows.map((s) => stepLine(s, cols, now, frame, c, width)),
    rows.length < view.steps.length
      ? c.dim(
          ` … ${plural(view.steps.length - rows.length, 'more step')} (edgeplan show ${view.run_id} lists every one)`,
        )
      : '',
    ...replacedLines(view.replaced, c, width),
  ].filter((l) => l !== '');
  if (view.steps.length === 0) lines.push(c.dim(` ${SPINNER[frame % SPINNER.length]!} planning…`));
  const count = (status: string) => view.steps.filter((s) => s.status === status).length;
  const [failed, skipped, interrupted] = [count('failed'), count('skipped'), count('interrupted')];
  lines.push(
    c.dim(
      ` ${count('completed')}/${plural(view.steps.length, 'step')} done` +
        (failed ? `, ${failed} failed` : '') +
        (skipped ? `, ${skipped} skipped` : '') +
        (interrupted ? `, ${interrupted} interrupted` : ''),
    ),
  );
  if (view.critical_path.length > 0) {
    const est = view.critical_path_ms === null ? '' : ` (est. ${duration(view.critical_path_ms)})`;
    lines.push(c.dim(clip(` critical path ◆ ${view.critical_path.join(' → ')}`, width * 2) + est));
  }
  for (const l of decisionLines(view)) lines.push(c.dim(` ${cut(l, width * 2)}`));
  if (view.waiting?.kind === 'approval') lines.push(c.yellow(' waiting for approval'));
  if (view.waiting?.kind === 'input') {
    // By when, and what then (a human.input question's deadline): `(until … UTC, then the step fails)`.
    const due = inputDeadlineShort(view.waiting);
    lines.push(c.yellow(` waiting for input: ${view.waiting.prompt ?? ''}${due ? ` (${due})` : ''}`));
  }
  for (const n of view.notices) lines.push(c.yellow(` ⚠ ${n.code}: ${cut(n.message, width * 2)}`));
  if (view.error) lines.push(c.red(` error: ${cut(view.error, width - 9)}`));
  if (view.cancel_reason !== null)
    lines.push(
      view.cancel_reason === 'plan_rejected'
        ? c.yellow(' plan rejected')
        : c.yellow(` cancelled: ${cut(view.cancel_reason, width - 13)}`),
    );
  if (view.limit_reached !== null) lines.push(c.yellow(` ⚠ ${cut(view.limit_reached, width * 2)}`));
  if (view.status === 'completed' && view.final_output !== undefined)
    lines.push(`${c.bold(' output:')} ${cut(JSON.stringify(view.final_output), width * 4)}`);
  return lines.join('\n');
}

/** One plain line for an event: `seq time type step details` (a goal's or an error's line breaks as spaces). */
export function eventLine(e: RunEvent): string {
  const time = e.timestamp.slice(11, 23);
  const p = e.payload as Record<string, unknown>;
  const stepId = typeof p.step_id === 'string' ? p.step_id : (e.references.step_id ?? '');
  const detail = eventDetail(e);
  return [String(e.seq).padStart(4), time, e.event_type.padEnd(18), stepId, oneLine(detail)]
    .filter(Boolean)
    .join('  ');
}

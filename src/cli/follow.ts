/**
 * Following a run in the terminal. On a TTY: the live view redrawn in place (log-update), and when
 * the run waits for approval or for a person's input, the question asked inline (@clack/prompts).
 * Otherwise: one plain line per event (or one JSON event per line with `--json`).
 */
import { EdgeplanApiError, inputDeadlineText, type EdgeplanClient } from '../client';
import type { Context } from './context';
import { EXIT, exitForStatus } from './exit-codes';
import { eventLine, plural, renderLive, type Style } from './render';
import { applyEvent, emptyView, type RunView } from '../client/run-view';
import { terminalText } from './terminal-text';
import { approverName, pendingApprovalLines } from './approval-text';
import { note, notesThrough } from './notes';

export type FollowOptions = {
  /** Redraw the live view (stdout is a terminal). */
  tty: boolean;
  /** Ask for approval and input inline (stdin is a terminal too). */
  interactive: boolean;
  json: boolean;
  style: Style;
  signal: AbortSignal;
  after?: number;
};

const write = (s: string) => process.stdout.write(terminalText(s));

/** The live view's frame: drawn at most this often (12.5 a second), however fast events come. */
const FRAME_MS = 80;

/** The run this process follows (or last followed): what Ctrl-C says how to cancel. */
let followed: string | null = null;
export const followedRun = (): string | null => followed;
/** Marks `runId` as the run this process follows, from the moment it exists. */
export const following = (runId: string) => void (followed = runId);

/**
 * Follows `runId` as `run` and `watch` do — the live view on a terminal (asking there), one line per
 * event otherwise — and with `--json` prints the run as it ended after its events. Resolves with the
 * exit code for how it ended, or null when Ctrl-C stopped the watch.
 */
export async function followToEnd(ctx: Context, runId: string): Promise<number | null> {
  const view = await follow(ctx.client, runId, {
    tty: ctx.live && !ctx.json,
    interactive: ctx.interactive && !ctx.json,
    json: ctx.json,
    style: ctx.style,
    signal: ctx.signal,
  });
  if (ctx.signal.aborted) return null;
  if (ctx.json) ctx.print(JSON.stringify(await ctx.client.getRun(runId)));
  return exitForStatus(view.status);
}

/** Follows `runId` until it ends (or `signal` aborts); returns what was seen. */
export async function follow(client: EdgeplanClient, runId: string, o: FollowOptions): Promise<RunView> {
  followed = runId;
  const view = emptyView(runId);
  const watchOptions = { signal: o.signal, ...connectionNotes(runId) };
  if (!o.tty) {
    for await (const e of client.watch(runId, { ...watchOptions, after: o.after })) {
      applyEvent(view, e);
      write(o.json ? `${JSON.stringify(e)}\n` : `${eventLine(e)}\n`);
      // Nobody at this terminal to ask: say (on stderr, stdout stays the events) how to answer —
      // while the run still waits (the backlog may hold a request answered long ago).
      const request = e.event_type === 'ApprovalRequested' || e.event_type === 'InputRequested';
      if (request && view.waiting && (await stillWaiting(client, runId)))
        process.stderr.write(terminalText(`${answerHint(view)}\n`));
    }
    return view;
  }

  const { createLogUpdate } = await import('log-update');
  const stdout = sizedStdout();
  const log = createLogUpdate(stdout);
  let frame = 0;
  // The log's events come first, then the live ones. A frame drawn in the middle of that replay would
  // time a step that was running then against now ("29.1s" for a step of 11 ms, the run long over):
  // the view is drawn once it holds the events the log had when the watch began; until then the
  // clock's ticks say how far the reading is (a long log was a redraw an event).
  const caughtUp = await lastSeqNow(client, runId);
  const replaying = () => view.last_seq < caughtUp;
  // Made safe before log-update adds the cursor movements it redraws with.
  const text = () => terminalText(renderLive(view, Date.now(), frame, o.style, stdout.columns));
  const draw = () => {
    if (!replaying()) log(text());
  };
  // A note written between two frames would be erased by the next as a line of the view (the
  // operator never saw "Lost the connection"), and shift the erase so a stale header stayed above
  // the view: the frame is cleared, the note written, and the view drawn again below it.
  // So are the client's retry notices (a 429 or 503 waited out mid-watch: src/cli/notes.ts).
  const say = (lines: string) => {
    log.clear();
    process.stderr.write(lines);
    draw();
  };
  const liveNotes = connectionNotes(runId, say);
  let notesBack = notesThrough(say);
  // Each frame is cut to the terminal's height (log-update), and what it cut is gone, scrollback too:
  // the view that stays — before a question, and at the end — is written whole.
  const keep = () => {
    log.persist(text());
    log.done();
  };
  const tick = () => {
    frame += 1;
    if (replaying())
      log(terminalText(o.style.dim(`reading the run's events: ${view.last_seq} of ${caughtUp}`)));
    else draw();
  };
  let timer = setInterval(tick, FRAME_MS);
  let after = o.after ?? 0;
  try {
    watching: for (;;) {
      for await (const e of client.watch(runId, { ...watchOptions, ...liveNotes, after })) {
        // Drawn at the next tick, not now: a fast run's events come thousands a second, and a frame
        // an event (each laying out the view and diffing it on the terminal) was all the CPU did.
        applyEvent(view, e);
        const request = e.event_type === 'ApprovalRequested' || e.event_type === 'InputRequested';
        // The backlog may hold a request already answered: ask only while the run still waits.
        if (!o.interactive || !request || !view.waiting) continue;
        if (!(await stillWaiting(client, runId))) continue;
        clearInterval(timer);
        keep();
        // No frame is drawn while the question is: a notice meanwhile is written as it comes.
        notesBack();
        await ask(client, view, o.style);
        notesBack = notesThrough(say);
        after = view.last_seq;
        timer = setInterval(tick, FRAME_MS);
        continue watching;
      }
      break;
    }
  } finally {
    clearInterval(timer);
    notesBack();
  }
  keep();
  return view;
}

/**
 * The run's last event when the watch begins (0 when the run cannot be read: the watch itself then
 * says why, as it did before).
 */
async function lastSeqNow(client: EdgeplanClient, runId: string): Promise<number> {
  try {
    return (await client.getRun(runId)).last_seq;
  } catch {
    return 0;
  }
}

/**
 * stdout as the live view draws on it. A terminal that reports no size (0×0: `script` without a
 * terminal, some CI and container consoles) is drawn 100 wide and 24 high — at 0 rows log-update
 * draws nothing, at 0 columns it wraps every character onto a line of its own.
 */
function sizedStdout(): NodeJS.WritableStream & { readonly columns: number; readonly rows: number } {
  const out = process.stdout;
  // Read at each frame, so a resized terminal is drawn at its new size.
  const sized = {
    isTTY: out.isTTY,
    write: (chunk: string) => out.write(chunk),
    get columns() {
      return out.columns || 100;
    },
    get rows() {
      return out.rows || 24;
    },
  };
  return sized as unknown as NodeJS.WritableStream & typeof sized;
}

/** Whether the run waits for approval or input now (`GET /status`, not the whole snapshot). */
async function stillWaiting(client: EdgeplanClient, runId: string): Promise<boolean> {
  const { run_status } = await client.getStatus(runId);
  return run_status === 'awaiting_approval' || run_status === 'awaiting_input';
}

/**
 * Tells the person watching (stderr) when the server goes away, and when it answers again. `say`
 * writes a note: the live view's clears the frame first and draws it again below the note.
 */
export function connectionNotes(runId: string, say: (note: string) => void = note) {
  // Said once a switch: a capped run's socket is tried again every Retry-After, and each refusal
  // reports the poll again.
  let polling = false;
  return {
    onReconnect: (attempt: number, after: number) => {
      if (attempt === 1)
        say(
          `Lost the connection to the server; ${runId} goes on there. Reconnecting (after event ${after})…\n`,
        );
    },
    onReconnected: () => void say(`Reconnected; following ${runId} again.\n`),
    // The run serves all the WebSockets it takes: followed over HTTP meanwhile (stdout unchanged).
    onTransport: (transport: 'websocket' | 'poll', reason: EdgeplanApiError | null) => {
      if (transport === 'poll' && reason && !polling)
        say(
          terminalText(
            `${runId} has as many WebSockets open as it serves (${reason.code}); following it over HTTP instead.\n`,
          ),
        );
      if (transport === 'websocket' && polling) say(`Following ${runId} over its WebSocket again.\n`);
      polling = transport === 'poll' && reason !== null;
    },
  };
}

/**
 * The failed step the run asks about (revision strategy `ask_user`), whose answer is an action —
 * not a `human.input` step's question, whose answer is any text. Any answer but an action retries.
 */
function askedAboutFailure(view: RunView): string | undefined {
  const id = view.waiting?.kind === 'input' ? view.waiting.step_id : undefined;
  return view.steps.find((s) => s.id === id)?.status === 'failed' ? id : undefined;
}

/** How to answer what the run waits for, from another terminal. */
function howToAnswer(view: RunView): string {
  const id = view.run_id;
  if (view.waiting?.kind === 'approval') return `Decide with: edgeplan approve ${id} | edgeplan reject ${id}`;
  // The question by its seq too (with its step: `--question` needs `--step`), so an answer typed after
  // someone else's retry asked again is refused (question_closed) instead of answering the new one.
  const seq = view.waiting?.question_seq;
  const question = (step: string | undefined) =>
    step === undefined ? '' : ` --step ${step}${seq === undefined ? '' : ` --question ${seq}`}`;
  const failed = askedAboutFailure(view);
  if (failed) return `Answer with: edgeplan input ${id} --action retry|skip|replan|abort${question(failed)}`;
  const step = question(view.waiting?.step_id);
  // A plain word is refused by a question that wants an object: say what fits before it is tried.
  const schema = view.waiting?.schema;
  const fits = schema === undefined ? '' : ` (JSON that fits its schema ${JSON.stringify(schema)})`;
  return `Answer with: edgeplan input ${id} <answer>${step}${fits}`;
}

/** What the run waits for, by when (a human.input question's deadline), and how to answer it. */
export function answerHint(view: RunView): string {
  const what = view.waiting?.kind === 'approval' ? 'approval' : 'input';
  const prompt = view.waiting?.prompt ? ` (${view.waiting.prompt})` : '';
  const due = view.waiting?.kind === 'input' ? inputDeadlineText(view.waiting) : null;
  return `${view.run_id} waits for ${what}${prompt}. ${due ? `${due} ` : ''}${howToAnswer(view)}`;
}

/** Asks the person at the terminal for the decision or input the run waits for, and sends it. */
async function ask(client: EdgeplanClient, view: RunView, style: Style): Promise<void> {
  const prompts = await import('@clack/prompts');
  if (view.waiting?.kind === 'approval') {
    // For a revision, what it changes since the approved version, before the question.
    const pending = await client.pendingApproval(view.run_id);
    for (const line of pendingApprovalLines(pending, style)) write(`${line}\n`);
    const choice = await prompts.select({
      message: `Approve ${pending ? `v${pending.plan_version} of ` : ''}the plan of ${view.run_id} (${plural(view.steps.length, 'step')})?`,
      options: [
        { value: 'approve', label: 'Approve', hint: 'run it' },
        { value: 'reject', label: 'Reject', hint: 'the run ends' },
        { value: 'detach', label: 'Decide later', hint: `edgeplan approve ${view.run_id}` },
      ],
    });
    if (prompts.isCancel(choice)) return interrupted(prompts, view, 'Nothing decided');
    if (choice === 'detach') return detach(view, EXIT.waiting);
    // About the version shown: refused if another awaits by the time the answer is sent.
    const said = {
      comment: 'from the edgeplan CLI',
      ...approverName(undefined),
      ...(pending ? { planVersion: pending.plan_version } : {}),
    };
    if (choice === 'approve') await client.approve(view.run_id, said);
    else await client.reject(view.run_id, said);
    return;
  }
  const failed = askedAboutFailure(view);
  if (failed) {
    // What the dashboard offers: typed as text, "skip" would be an answer that retries.
    const action = await prompts.select({
      message: terminalText(view.waiting?.prompt ?? `Step ${failed} failed: how should the run continue?`),
      options: [
        { value: 'retry', label: 'Retry step', hint: 'runs the step again' },
        { value: 'skip', label: 'Skip step', hint: 'goes on without it' },
        { value: 'replan', label: 'Replan', hint: 'asks the planner for the rest of the plan' },
        { value: 'abort', label: 'Abort run', hint: 'ends the run, aborted' },
        { value: 'detach', label: 'Decide later', hint: `edgeplan input ${view.run_id} --action …` },
      ],
    });
    if (prompts.isCancel(action)) return interrupted(prompts, view, 'Nothing decided');
    if (action === 'detach') return detach(view, EXIT.waiting);
    // The question shown, not the one the step asks after someone else's retry (question_closed).
    await client.sendInput(
      view.run_id,
      { action },
      { stepId: failed, questionSeq: view.waiting?.question_seq, ...approverName(undefined) },
    );
    return;
  }
  const schema = view.waiting?.schema;
  if (schema !== undefined)
    write(`${style.dim(`The answer must fit the JSON Schema ${JSON.stringify(schema)}`)}\n`);
  // By when, and what happens then if nobody answers (the step is asked again, or fails).
  const due = inputDeadlineText(view.waiting);
  if (due) write(`${style.yellow(due)}\n`);
  for (;;) {
    const answer = await prompts.text({
      message: terminalText(view.waiting?.prompt ?? 'The run waits for input:'),
    });
    if (prompts.isCancel(answer)) return interrupted(prompts, view, 'No answer sent');
    let input: unknown = answer;
    try {
      input = JSON.parse(answer);
    } catch {
      // plain text is the answer as typed
    }
    try {
      // The answer to the question shown: refused, not taken as new information, if someone answered first.
      await client.sendInput(view.run_id, input, {
        stepId: view.waiting?.step_id,
        questionSeq: view.waiting?.question_seq,
        ...approverName(undefined),
      });
      return;
    } catch (err) {
      // One that does not fit the question's schema leaves the step waiting: say why, and ask again.
      if (!unfitAnswer(err)) throw err;
      write(`${style.red(err.message)}\n`);
    }
  }
}

/** An answer refused for not fitting the JSON Schema its question gave (`answer_does_not_fit`). */
function unfitAnswer(err: unknown): err is EdgeplanApiError {
  const details = err instanceof EdgeplanApiError ? err.details : undefined;
  return (
    typeof details === 'object' &&
    details !== null &&
    'reason' in details &&
    details.reason === 'answer_does_not_fit'
  );
}

/**
 * Ctrl-C at a question: said in words below it. Without colour the cancelled question still shows
 * the choice the cursor was on (`│  Approve`, struck through only in colour), which read as chosen.
 */
function interrupted(prompts: { cancel(message: string): void }, view: RunView, said: string): never {
  prompts.cancel(`${said} (Ctrl-C)`);
  return detach(view, EXIT.interrupted);
}

/** Leaves the run waiting: says how to answer it later, and exits (3, or 130 after Ctrl-C). */
function detach(view: RunView, code: number): never {
  write(`Left ${view.run_id} waiting. ${howToAnswer(view)}\n`);
  process.exit(code);
}

/**
 * The commands that read runs: `runs [ls | show <id>]`, `events <id> [--follow]` and `watch <id>`
 * (acting on a run is act.ts; `plans` and `tools` have files of their own).
 */
import type { Command } from 'commander';
import type { Run, RunEvent } from '../../client';
import { skippedBecause } from '../../client/skip-text';
import { table, type Context } from '../context';
import { clip } from '../text-width';
import { EXIT, exitForStatus, UsageError } from '../exit-codes';
import { answerHint, follow, followToEnd } from '../follow';
import { runId, wholeNumber } from '../inputs';
import { applyEvent, emptyView, type StepView } from '../../client/run-view';
import { runTimeAt, runTimeText } from '../../client/run-time';
import { nameSourceWords, quotedName } from '../../client/name-source-text';
import { roundAttempts, roundText } from '../../client/attempt-text';
import { decisionLines, duration, eventLine, parentLine, replacedLines, stepNote } from '../render';
import { terminalText } from '../terminal-text';
import { keptPage, LISTED_STATUSES, listedStatus } from '../../client/listed-status';
import { statusFilter } from '../listed-status';
import { pendingApprovalLines } from '../approval-text';

type Done = (code: number) => void;

/** `, verified by Access` after who answered, when the event says how the name was established. */
function sourceWords(via: string | undefined): string {
  const words = nameSourceWords(via);
  return words === null ? '' : `, ${words}`;
}

/**
 * A step row's last column: its error, why it was skipped (in words), the answer a person gave a
 * `human.input` step, or that it was running when the run ended.
 */
function rowNote(run: Run, id: string, d: Run['steps'][string], s: StepView | undefined): string {
  if (!d) return '';
  if (d.retry_at && d.error) {
    // Waiting for its retry: when, and whether that is its service's asking (Retry-After).
    const asked = s?.next_attempt?.retry_after ? ' (Retry-After)' : '';
    return `retry at ${d.retry_at.slice(11, 19)} UTC${asked}: ${d.error.message}`;
  }
  if (d.error) return d.error.message;
  if (d.skip_reason) return `skipped: ${skippedBecause(d.skip_reason, run.termination_reason)}`;
  if (d.interrupted) return 'was running when the run ended';
  if (s?.action === 'human.input' && d.status === 'completed' && id in run.step_results)
    return (
      `answered: ${clip(terminalText(JSON.stringify(run.step_results[id]) ?? ''), 80)}` +
      (s.answered_by
        ? ` (by ${quotedName(s.answered_by, s.answered_by_via)}${sourceWords(s.answered_by_via)})`
        : '')
    );
  return '';
}

/**
 * The TRIES cell: the step's attempts over the run, and in a retry or re-run how many of them this
 * round made (`×3 (1 in retry 1)`), so "3" is not read as three tries since the retry.
 */
function triesCell(attempts: number, s: StepView | undefined): string {
  if (!attempts) return '';
  return s?.round ? `×${attempts} (${roundAttempts(s)} in ${roundText(s)})` : `×${attempts}`;
}

export function registerManage(program: Command, context: () => Context, done: Done): void {
  const runs = program
    .command('runs')
    .description('List runs (newest first), or show one')
    // `ls` is what `runs` does: its options are the ones someone asking `runs --help` wants to see.
    .addHelpText(
      'after',
      '\n`edgeplan runs [options]` is `edgeplan runs ls [options]`: --status, --limit, --cursor, --parent, --top-level (edgeplan runs ls --help).',
    );
  runs
    .command('ls', { isDefault: true })
    .description('List runs')
    .option('-s, --status <status>', `only runs with this status: ${LISTED_STATUSES.join(', ')}`)
    .option('-n, --limit <n>', 'how many (1–200)', '20')
    .option('--cursor <cursor>', 'the next page, as the last list said')
    .option('-p, --parent <id>', 'only the child runs this run’s steps started')
    .option('--top-level', 'only runs no step started (no child runs)')
    .action(
      async (o: { status?: string; limit: string; cursor?: string; parent?: string; topLevel?: boolean }) => {
        const ctx = context();
        if (o.parent !== undefined && o.topLevel)
          throw new UsageError('--parent and --top-level exclude each other: give one of them');
        const filter = o.status === undefined ? undefined : statusFilter(o.status);
        const limit = wholeNumber(o.limit, '--limit', 1, 200);
        const parent = o.parent !== undefined ? runId(o.parent) : undefined;
        const read = (cursor: string | null) =>
          ctx.client.listRuns({
            ...(filter ? { status: filter.status } : {}),
            ...(cursor ? { cursor } : {}),
            ...(parent !== undefined ? { parent_run_id: parent } : {}),
            ...(o.topLevel ? { top_level: true } : {}),
            limit,
          });
        // The API lists rejected runs among `cancelled` ones: the page keeps the runs shown with the
        // status asked, read on past pages that hold none (keptPage, as the dashboard's list does).
        const page = (await keptPage(read, o.cursor ?? null, filter?.keep ?? (() => true)))!;
        if (ctx.json) return (ctx.printJson(page), done(EXIT.ok));
        // The PARENT column only when the page has a child run: most lists have none, and ids are wide.
        const parents = page.runs.some((r) => r.parent_run_id);
        const rows = page.runs.map((r) => [
          r.run_id,
          listedStatus(r),
          String(r.step_count),
          r.created_at.slice(0, 19),
          ...(parents ? [r.parent_run_id ?? '-'] : []),
          // On its row: a goal's line breaks would start rows of their own; none is said as PARENT's is.
          // Cut as printed: a control character written out takes the columns of its escape.
          clip(terminalText(r.goal.replace(/\s+/g, ' ').trim()), 60) || '-',
        ]);
        const head = ['RUN', 'STATUS', 'STEPS', 'CREATED (UTC)', ...(parents ? ['PARENT'] : []), 'GOAL'];
        ctx.print(rows.length ? table([head, ...rows]) : noRuns(o, page.next_cursor !== null));
        if (page.next_cursor) {
          const flags =
            (o.status ? ` --status ${o.status}` : '') +
            (o.parent !== undefined ? ` --parent ${o.parent}` : '') +
            (o.topLevel ? ' --top-level' : '') +
            (o.limit !== '20' ? ` --limit ${o.limit}` : '');
          ctx.print(ctx.style.dim(`More: edgeplan runs${flags} --cursor ${page.next_cursor}`));
        }
        done(EXIT.ok);
      },
    );
  const show = async (given: string) => {
    const ctx = context();
    const id = runId(given);
    const run = await ctx.client.getRun(id);
    if (ctx.json) return (ctx.printJson(run), done(exitForStatus(run.status)));
    // The snapshot is the current plan; what earlier versions replaced is in the events — folded a
    // page at a time as read, none kept (a 100,000-step run's 300,000 held at once: half a gigabyte).
    const view = emptyView(id);
    let first: RunEvent | undefined;
    for await (const page of eventPages(ctx, id, 0))
      for (const e of page) {
        first ??= e;
        applyEvent(view, e);
      }
    // How long it ran, and apart from that how long it waited for a person: not "3 h" for 2 s of work
    // (the view's clock, which its events moved).
    const spent = runTimeText(runTimeAt(view.clock, Date.now()));
    const time = spent ? `  ${spent}` : '';
    const status = run.termination_reason === 'plan_rejected' ? 'rejected' : run.status;
    const why =
      run.termination_reason && !['success', 'plan_rejected'].includes(run.termination_reason)
        ? ` (${run.termination_reason})`
        : '';
    ctx.print(`${run.run_id}  ${status}${why}${time}  plan v${run.plan_version ?? '-'}`);
    const parent = parentLine(run);
    if (parent) ctx.print(parent);
    if (run.goal) ctx.print(`goal: ${run.goal}`);
    // What the plan's {{ input.… }} read (the snapshot has no input, the run's first event has it).
    // None said for a run given none (its input is `{}`).
    const created = first?.event_type === 'RunCreated' ? first.payload : undefined;
    const input = created ? JSON.stringify(created.input ?? null) : 'null';
    if (input !== 'null' && input !== '{}') ctx.print(`input: ${clip(input, 200)}`);
    // What the approver decides on, before the steps: for a revision, what changed since the approved plan.
    for (const line of pendingApprovalLines(run.pending_approval, ctx.style)) ctx.print(line);
    // The question a person is to answer, and how: the run's snapshot has neither, its events both.
    if (run.status === 'awaiting_input' && view.waiting?.kind === 'input')
      ctx.print(ctx.style.yellow(answerHint(view)));
    const viewed = new Map(view.steps.map((s) => [s.id, s]));
    const rows = Object.entries(run.steps).map(([step, d]) => [
      step,
      // Not "running" on a run that has ended: it was, when the run ended (the API says so).
      d.interrupted ? 'interrupted' : d.status,
      triesCell(d.attempts, viewed.get(step)),
      d.latency_ms === null ? '' : duration(d.latency_ms),
      stepNote(view, step, rowNote(run, step, d, viewed.get(step))),
    ]);
    if (rows.length) ctx.print(table([['STEP', 'STATUS', 'TRIES', 'TIME', ''], ...rows]));
    for (const line of replacedLines(view.replaced, ctx.style, 100)) ctx.print(line);
    // Where the steps' child runs are: `edgeplan show` on one leads back here (its `child of` line).
    if (view.steps.some((s) => s.action === 'agent.dispatch')) {
      const children = await ctx.client.listRuns({ parent_run_id: id, limit: 200 });
      for (const c of children.runs)
        ctx.print(
          `child run ${c.run_id}  ${c.status}  (step ${c.parent_step_id ?? '?'}): edgeplan show ${c.run_id}`,
        );
    }
    for (const line of decisionLines(view)) ctx.print(line);
    if (run.error) ctx.print(`error: ${run.error.code}: ${run.error.message}`);
    // A success a limit cut short: the model had not said it was done.
    if (run.limit_reached) ctx.print(`stopped: ${run.limit_reached.message}`);
    if (run.final_output !== undefined && run.final_output !== null) {
      // Its start, and where the whole is: a wide run's output (one key a step) was a line of 1.2 MB.
      const whole = JSON.stringify(run.final_output);
      const cut = whole.length > OUTPUT_SHOWN;
      const more = ` (${whole.length} characters; the whole: edgeplan show ${id} --json)`;
      ctx.print(`output: ${cut ? clip(whole, OUTPUT_SHOWN) + more : whole}`);
    }
    done(exitForStatus(run.status));
  };
  runs
    .command('show')
    .description('A run: status, each step, what earlier plan versions replaced, the output')
    .argument('<id>', 'run id')
    .action(show);
  // `edgeplan show <id>`: what a person types first.
  program.command('show').description('A run (as `runs show <id>`)').argument('<id>', 'run id').action(show);

  program
    .command('events')
    .description('A run’s events, one line each; --follow to keep reading until it ends')
    .argument('<id>', 'run id')
    .option('-a, --after <seq>', 'only events after this seq', '0')
    .option('-F, --follow', 'follow live until the run ends')
    .action(async (given: string, o: { after: string; follow?: boolean }) => {
      const ctx = context();
      const id = runId(given);
      const after = wholeNumber(o.after, '--after', 0);
      if (o.follow) {
        const view = await follow(ctx.client, id, {
          tty: false,
          interactive: false,
          json: ctx.json,
          style: ctx.style,
          signal: ctx.signal,
          after,
        });
        // Nothing after `after`: the run had ended there; its exit code is its status's.
        const status = view.last_seq > after ? view.status : (await ctx.client.getStatus(id)).run_status;
        return done(exitForStatus(status));
      }
      // The status first, then the events: the listing holds at least everything that led to it, and
      // the exit code says what the run was doing (3: it waits for someone — as `show` and `--follow` say).
      const { run_status } = await ctx.client.getStatus(id);
      // Printed a page at a time as read, none kept: a run of 100,000 steps has 300,000 events, which
      // all held before the first was printed took the command half a gigabyte and a wait in silence.
      for await (const page of eventPages(ctx, id, after))
        for (const e of page) ctx.print(ctx.json ? JSON.stringify(e) : eventLine(e));
      done(exitForStatus(run_status));
    });

  // A run started elsewhere (the dashboard, the client, `run --no-watch`) followed as `run` follows
  // the runs it starts: what `edgeplan watch` does, as the client's watch() does in code.
  program
    .command('watch')
    .description(
      'Follow a run to its end: the live view on a terminal (asking for approval or input there), one line per event otherwise',
    )
    .argument('<id>', 'run id')
    .action(async (given: string) => {
      const ctx = context();
      const id = runId(given);
      await sayParent(ctx, id);
      const code = await followToEnd(ctx, id);
      if (code !== null) done(code);
    });
}

/** The most of a run's output `show` prints (`--json` has it whole). */
const OUTPUT_SHOWN = 2000;

/** Events asked for at a time: a page the API answers (at most 1,000 and about 8 MiB). */
const EVENTS_PAGE = 1000;

/** The run's events after `after`, a page at a time as the API pages them, for a caller to use and drop. */
async function* eventPages(ctx: Context, id: string, after: number): AsyncGenerator<RunEvent[]> {
  for (let cursor = after; ;) {
    const page = await ctx.client.eventsPage(id, { after: cursor, limit: EVENTS_PAGE });
    yield page.events;
    if (!page.has_more || page.events.length === 0) return;
    cursor = page.next_after;
  }
}

/** What an empty page of `runs` says: what was filtered ("No runs yet." beside finished runs misleads). */
function noRuns(
  o: { status?: string; cursor?: string; parent?: string; topLevel?: boolean },
  more: boolean,
): string {
  const kind = o.parent !== undefined ? `child runs of ${o.parent}` : o.topLevel ? 'top-level runs' : 'runs';
  // `rejected` and `cancelled` share the API's pages: one may hold none of the runs asked for, the next some.
  if (o.status) return `No ${kind} with status ${o.status}${more ? ' on this page' : ''}.`;
  if (o.cursor) return `No more ${kind}.`;
  return o.parent !== undefined || o.topLevel ? `No ${kind}.` : 'No runs yet.';
}

/**
 * Before following a child run: which run and step started it. On a terminal above the live view; in a
 * pipe on stderr, where stdout stays one line per event; with --json not at all (the run that ends
 * the output names it).
 */
async function sayParent(ctx: Context, id: string): Promise<void> {
  if (ctx.json) return;
  const line = parentLine(await ctx.client.getStatus(id));
  if (!line) return;
  if (ctx.tty) ctx.print(ctx.style.dim(`${id}: ${line}`));
  else process.stderr.write(terminalText(`${id}: ${line}\n`));
}

/**
 * The commands that act on a run: `approve`, `reject`, `retry`, `cancel`, `delete`, `replan` and
 * `input` (reading a run — `runs`, `show`, `events`, `watch` — is manage.ts).
 */
import type { Command } from 'commander';
import { EdgeplanApiError, type ApprovalDecision, type ControlResult, type Finding } from '../../client';
import type { Context } from '../context';
import { EXIT, UsageError } from '../exit-codes';
import { followToEnd } from '../follow';
import { reportFindings } from '../findings';
import { answerValue, readJson, runId } from '../inputs';
import { approverName, pendingApprovalLines } from '../approval-text';

type Done = (code: number) => void;

/** What `input --action` may answer a failed step the run asks about (revision strategy `ask_user`). */
const ACTIONS = ['retry', 'skip', 'abort', 'replan'];

const FOLLOW_HELP = 'then follow the run to its end, as `edgeplan watch` does; the exit code is its outcome';

export function registerActions(program: Command, context: () => Context, done: Done): void {
  // `shown`: the status as `runs` shows it (a rejected plan ends the run `cancelled`: `rejected`).
  const control = (ctx: Context, r: ControlResult, shown: string = r.status) => {
    if (ctx.json) ctx.printJson(r);
    else ctx.print(`${r.run_id}  ${shown}${r.plan_version === undefined ? '' : `  plan v${r.plan_version}`}`);
    done(EXIT.ok);
  };
  // With --watch, the run the action set going is followed to its end, as `edgeplan watch` follows it,
  // and the exit code is its outcome's (0 completed, 1 failed, 3 waiting) instead of the action's.
  const controlThenFollow = async (ctx: Context, r: ControlResult, watch: boolean | undefined) => {
    if (!watch) return control(ctx, r);
    if (!ctx.json && !ctx.live) ctx.print(`${r.run_id}  ${r.status}`);
    const code = await followToEnd(ctx, r.run_id);
    if (code !== null) done(code);
  };

  program
    .command('approve')
    .description('Approve the plan of a run awaiting approval (--edit: approve a changed plan)')
    .argument('<id>', 'run id')
    .option(
      '-e, --edit <plan.json>',
      'a file: the plan to run instead, or {"edits": [{"op": "update_step", "step_id": "s", "changes": {"parameters": {…}}}, …]} (ops: update_step, remove_step, add_step, move_step, set_dependencies)',
    )
    .option('-m, --comment <text>', 'why')
    .option('--as <name>', 'your name, recorded with the decision as given (env EDGEPLAN_APPROVER)')
    .option('-w, --watch', FOLLOW_HELP)
    .action(async (given: string, o: { edit?: string; comment?: string; as?: string; watch?: boolean }) => {
      const ctx = context();
      const id = runId(given);
      const named = approverName(o.as);
      // What is being approved, first: for a revision, what it changes since the approved version.
      if (!ctx.json) {
        const pending = await ctx.client.pendingApproval(id);
        for (const line of pendingApprovalLines(pending, ctx.style)) ctx.print(line);
      }
      if (!o.edit)
        return controlThenFollow(
          ctx,
          await ctx.client.approve(id, { comment: o.comment, ...named }),
          o.watch,
        );
      const read = readJson(o.edit);
      if (read === null || typeof read !== 'object' || Array.isArray(read))
        throw new UsageError(
          `--edit ${o.edit}: the file must hold a plan or {"edits": [...]} (a JSON object)`,
        );
      const file = read as Record<string, unknown>;
      // The file is read as given; the API validates the plan or the edits and answers with findings.
      const change: Pick<ApprovalDecision, 'plan' | 'edits'> = Array.isArray(file.edits)
        ? { edits: file.edits as NonNullable<ApprovalDecision['edits']> }
        : { plan: file as NonNullable<ApprovalDecision['plan']> };
      const decided = await ctx.client
        .modify(id, { ...change, ...(o.comment ? { comment: o.comment } : {}), ...named })
        .catch((err: unknown) => {
          // A changed plan the API refuses: its findings at their lines in the file, as `run` shows them.
          const errors = (err as { details?: { errors?: Finding[] } }).details?.errors;
          if (!change.plan || ctx.json || !(err instanceof EdgeplanApiError) || !Array.isArray(errors))
            throw err;
          reportFindings(ctx, err.code, o.edit!, undefined, errors);
          return null;
        });
      if (!decided) return done(EXIT.failed);
      await controlThenFollow(ctx, decided, o.watch);
    });
  program
    .command('reject')
    .description('Reject the plan of a run awaiting approval (the run ends)')
    .argument('<id>', 'run id')
    .option('-m, --comment <text>', 'why')
    .option('--as <name>', 'your name, recorded with the decision as given (env EDGEPLAN_APPROVER)')
    .action(async (id: string, o: { comment?: string; as?: string }) =>
      control(
        context(),
        await context().client.reject(runId(id), { comment: o.comment, ...approverName(o.as) }),
        'rejected',
      ),
    );
  program
    .command('retry')
    .description(
      'Re-run a failed, aborted or cancelled run from its failed step(s), keeping completed results',
    )
    .argument('<id>', 'run id')
    .option('-s, --step <step>', 'retry from this step')
    .option('-w, --watch', `${FOLLOW_HELP} (default on a terminal, as for run)`)
    .option('--no-watch', 'print the retried run and exit')
    .action(async (id: string, o: { step?: string; watch?: boolean }) => {
      const ctx = context();
      await controlThenFollow(ctx, await ctx.client.retry(runId(id), o.step), o.watch ?? ctx.tty);
    });
  program
    .command('cancel')
    .description('Cancel a run')
    .argument('<id>', 'run id')
    .option('-r, --reason <text>', 'why')
    .action(async (id: string, o: { reason?: string }) =>
      control(context(), await context().client.cancel(runId(id), o.reason)),
    );
  program
    .command('delete')
    .description('Delete an ended run and everything stored for it, its child runs too (cannot be undone)')
    .argument('<id>', 'run id')
    .option(
      '-f, --force',
      'delete a run this release cannot read (run_unreadable) without reading it; a readable run is deleted as without it',
    )
    .action(async (given: string, o: { force?: boolean }) => {
      const ctx = context();
      const r = await ctx.client.deleteRun(runId(given), { force: o.force === true });
      if (ctx.json) return (ctx.printJson(r), done(EXIT.ok));
      const n = r.child_runs.length;
      ctx.print(
        `Deleted ${r.run_id}${n === 0 ? '' : ` and ${n} child run${n === 1 ? '' : 's'}: ${r.child_runs.join(', ')}`}`,
      );
      done(EXIT.ok);
    });
  program
    .command('replan')
    .description('Ask the planner to revise the rest of a run’s plan')
    .argument('<id>', 'run id')
    .requiredOption('-r, --reason <text>', 'why the plan should change')
    .option('-w, --watch', FOLLOW_HELP)
    .action(async (id: string, o: { reason: string; watch?: boolean }) => {
      const ctx = context();
      await controlThenFollow(ctx, await ctx.client.replan(runId(id), o.reason), o.watch);
    });
  program
    .command('input')
    .description('Answer a run awaiting input: a human.input step’s answer, or --action for a failed step')
    .argument('<id>', 'run id')
    .argument(
      '[answer]',
      'the answer: JSON when it parses ("3", \'{"a":1}\'), else the text; @file.json reads a file',
    )
    .option('-a, --action <action>', 'for a failed step the run asks about: retry | skip | abort | replan')
    .option(
      '-s, --step <step>',
      'the step whose question this answers: refused (exit 1) if it is not waiting, e.g. someone answered first — without it, an answer the run no longer waits for is new information',
    )
    .option(
      '-q, --question <seq>',
      'with --step: the question this answers, the seq of its InputRequested event (edgeplan events) — refused (exit 1) once the run asks another, e.g. the step asks again after someone else’s retry',
    )
    .option('--as <name>', 'your name, recorded with the answer as given (env EDGEPLAN_APPROVER)')
    .option('-w, --watch', FOLLOW_HELP)
    .action(
      async (
        given: string,
        answer: string | undefined,
        o: { action?: string; step?: string; question?: string; as?: string; watch?: boolean },
      ) => {
        const ctx = context();
        const id = runId(given);
        if ((answer === undefined) === (o.action === undefined))
          throw new UsageError('input takes an answer or --action retry|skip|abort|replan (one of them)');
        if (o.action !== undefined && !ACTIONS.includes(o.action))
          throw new UsageError(`--action must be one of ${ACTIONS.join(', ')} (got "${o.action}")`);
        if (answer !== undefined && ACTIONS.includes(answer)) await refuseBareAction(ctx, id, answer, o.step);
        const questionSeq = o.question === undefined ? undefined : Number(o.question);
        if (questionSeq !== undefined && !(Number.isInteger(questionSeq) && questionSeq >= 1))
          throw new UsageError(`--question must be a whole number from 1 (got "${o.question}")`);
        if (questionSeq !== undefined && o.step === undefined)
          throw new UsageError('--question names the question of a step: give its --step too');
        const input = o.action !== undefined ? { action: o.action } : answerValue(answer!);
        await controlThenFollow(
          ctx,
          await ctx.client.sendInput(id, input, { stepId: o.step, questionSeq, ...approverName(o.as) }),
          o.watch,
        );
      },
    );
}

/**
 * `input <id> skip` to a run that asks about a failed step: the word would be sent as an answer,
 * which the run takes as a retry — the failed call made again instead of skipped. Refused, naming
 * `--action`; the text itself still goes as JSON (`'"skip"'`), as a `human.input` answer may be it.
 */
async function refuseBareAction(ctx: Context, id: string, word: string, step: string | undefined) {
  const run = await ctx.client.getRun(id);
  const failed = Object.entries(run.step_statuses)
    .filter(([s, status]) => status === 'failed' && (step === undefined || s === step))
    .map(([s]) => s);
  if (run.status !== 'awaiting_input' || failed.length === 0) return;
  throw new UsageError(
    `${id} asks what to do about failed step "${failed[0]}": answer with --action ${word} ` +
      `(a plain "${word}" is an answer, which retries the step). To send the text itself, give it as JSON: '"${word}"'`,
  );
}

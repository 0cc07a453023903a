/** `edgeplan run <file> | --goal "…"` and `edgeplan validate <file>`. */
import type { Command } from 'commander';
import {
  DEFAULT_MAX_RETRY_WAIT_MS,
  EdgeplanApiError,
  estimateText,
  type CreateRunRequest,
  type Finding,
} from '../../client';
import { applyEvent, emptyView } from '../../client/run-view';
import type { Context } from '../context';
import { EXIT, exitForStatus, UsageError } from '../exit-codes';
import { followToEnd, following } from '../follow';
import { findingLines, reportFindings } from '../findings';
import { collect, idempotencyKey, pairs, planRequest, wholeNumber } from '../inputs';
import { terminalText } from '../terminal-text';

type RunOptions = {
  goal?: string;
  format?: string;
  input: string[];
  config: string[];
  watch?: boolean;
  idempotencyKey?: string;
  timeout?: string;
};

/** How long `run` waits, without `--timeout`, for the create's answer (retries included)… */
const CREATE_WAIT_S = 60;

/**
 * How long the create may take. `--timeout`: that, all in, a wait the server asks for included (one
 * that does not fit is not begun). Without it: a minute of waiting for answers — three attempts of
 * 20 s, so a server that takes the request and never answers costs a minute, not three — plus the
 * waits the server asks for (`503 deploy_in_progress`: 60 s), up to the client's 2 minutes.
 */
function createBounds(timeoutS: number | null): { timeoutMs: number; attemptTimeoutMs?: number } {
  if (timeoutS !== null) return { timeoutMs: timeoutS * 1000 };
  return {
    timeoutMs: CREATE_WAIT_S * 1000 + DEFAULT_MAX_RETRY_WAIT_MS,
    attemptTimeoutMs: (CREATE_WAIT_S * 1000) / 3,
  };
}
/** …and, not watching a goal, for its plan (a planning's model calls and repairs take a while). */
const PLANNING_WAIT_S = 300;

export function registerRun(program: Command, context: () => Context, done: (code: number) => void): void {
  program
    .command('run')
    .description(
      'Start a run from a plan file (JSON plan, _tool array, TEA YAML, LLMCompiler text) or a goal',
    )
    .argument('[file]', 'the plan: .json, .yaml/.yml (TEA), .txt (LLMCompiler)')
    .option('-g, --goal <goal>', 'plan this goal with the configured planner instead of a file')
    .option('-f, --format <format>', 'plan | tool-calls | tea-yaml | llmcompiler (default: by extension)')
    .option('-i, --input <k=v|@file.json>', 'the run input (repeatable)', collect, [])
    .option(
      '-c, --config <k=v|@file.json>',
      'a run config field, e.g. execution_mode=parallel (repeatable)',
      collect,
      [],
    )
    .option(
      '-k, --idempotency-key <key>',
      'run it again with the same key and the same plan: the run the key started, not a second one',
    )
    .option('-w, --watch', 'follow the run to its end (default on a terminal)')
    .option('--no-watch', 'print the created run and exit')
    .option(
      '--timeout <seconds>',
      `the most to wait for the server: for the create's answer, retries included (default ${CREATE_WAIT_S}), and with --no-watch for a goal's plan (default ${PLANNING_WAIT_S}); watching is not bounded`,
    )
    .action(async (file: string | undefined, o: RunOptions) => {
      const ctx = context();
      if (!file && !o.goal) throw new UsageError('run needs a plan file or --goal "…"');
      if (file && o.goal) throw new UsageError('run takes a plan file or --goal, not both');
      const body: CreateRunRequest = file ? planRequest(file, o.format) : { goal: o.goal! };
      const input = pairs(o.input, '--input');
      const config = pairs(o.config, '--config');
      if (Object.keys(input).length > 0) body.input = { ...(body.input as object), ...input };
      if (Object.keys(config).length > 0) body.config = { ...body.config, ...config };
      if (config.mode === 'lazy')
        throw new UsageError(
          '--config mode=lazy runs nothing: `edgeplan validate <file>` checks a plan and estimates it',
        );
      const timeoutS = o.timeout === undefined ? null : wholeNumber(o.timeout, '--timeout', 1, 86_400);
      const key = o.idempotencyKey === undefined ? {} : { idempotencyKey: idempotencyKey(o.idempotencyKey) };
      const created = await ctx.client
        .createRun(body, { ...key, ...createBounds(timeoutS) })
        .catch((err: unknown) => {
          // An invalid plan from a file: its findings at their lines, as `validate` shows them.
          const errors = (err as { details?: { errors?: Finding[] } }).details?.errors;
          if (!file || ctx.json || !(err instanceof EdgeplanApiError) || !Array.isArray(errors)) throw err;
          reportFindings(ctx, err.code, file, o.format, errors);
          return null;
        });
      if (!created) return done(EXIT.failed);
      following(created.run_id);
      const watch = o.watch ?? ctx.tty;
      if (!watch) {
        // A planned goal is created `planning`: whether it will wait for approval, run, or fail to
        // plan is not known yet. The command waits for the plan, so its exit code tells a script what
        // to do next (3: approve it) — not 0 for a run that may never start.
        const waitS = timeoutS ?? PLANNING_WAIT_S;
        const status =
          created.status === 'planning' ? await pastPlanning(ctx, created.run_id, waitS) : created.status;
        if (ctx.json) ctx.printJson({ ...created, status });
        else ctx.print(`${created.run_id}  ${status}`);
        if (status === 'planning') {
          // Not an outcome a script can act on: say so, and fail, rather than exit 0 for a run that may never start.
          process.stderr.write(
            terminalText(
              `edgeplan: ${created.run_id} is still planning after ${waitS} s; it goes on. Follow it with \`edgeplan watch ${created.run_id}\`, or wait longer with --timeout <seconds>\n`,
            ),
          );
          return done(EXIT.failed);
        }
        return done(exitForStatus(status));
      }
      if (!ctx.json && !ctx.live) ctx.print(`run ${created.run_id}`);
      const code = await followToEnd(ctx, created.run_id);
      if (code !== null) done(code);
    });

  program
    .command('validate')
    .description('Validate a plan file: every finding, with file:line for TEA and LLMCompiler sources')
    .argument('<file>', 'the plan: .json, .yaml/.yml (TEA), .txt (LLMCompiler)')
    .option('-f, --format <format>', 'plan | tool-calls | tea-yaml | llmcompiler (default: by extension)')
    .option(
      '-c, --config <k=v|@file.json>',
      'a run config field checked with the plan (repeatable)',
      collect,
      [],
    )
    .option(
      '-i, --input <k=v|@file.json>',
      "the run's input, which {{ input.… }} references are checked against, as `run` would (repeatable)",
      collect,
      [],
    )
    .action(async (file: string, o: { format?: string; config: string[]; input: string[] }) => {
      const ctx = context();
      const body = planRequest(file, o.format);
      const input = pairs(o.input, '--input');
      if (Object.keys(input).length > 0) body.input = { ...(body.input as object), ...input };
      if ('goal' in body && !('plan' in body) && !('source' in body))
        throw new UsageError(
          `${file} holds a goal, not a plan: \`edgeplan run ${file}\` plans and runs it (validate checks plans)`,
        );
      const config = pairs(o.config, '--config');
      const result = await ctx.client
        .validatePlan({ ...body, ...(Object.keys(config).length ? { config } : {}) })
        .catch((err: unknown) => {
          // A source that does not import (TEA, LLMCompiler) is a 422 whose details list the findings.
          const details = (err as { details?: { errors?: Finding[] }; code?: string }).details;
          if ((err as { code?: string }).code === 'invalid_plan' && details?.errors)
            return { valid: false, errors: details.errors };
          throw err;
        });
      if (ctx.json) ctx.printJson(result);
      else {
        for (const line of findingLines(ctx, file, o.format, result.errors)) ctx.print(line);
        if (result.valid) {
          const est = 'estimates' in result && result.estimates ? result.estimates : null;
          ctx.print(`${ctx.style.green('✔')} ${file} is valid` + (est ? `: ${estimateText(est)}` : ''));
        } else ctx.print(`${ctx.style.red('✖')} ${findings(result.errors.length)}`);
      }
      done(result.valid ? EXIT.ok : EXIT.failed);
    });
}

/**
 * The run's status once planning is over (or the command is interrupted): `awaiting_approval`,
 * `running`, `failed` (the plan could not be made), … — read from its events as they come.
 */
async function pastPlanning(ctx: Context, runId: string, waitS: number): Promise<string> {
  const view = emptyView(runId);
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(waitS * 1000)]);
  for await (const e of ctx.client.watch(runId, { signal })) {
    applyEvent(view, e);
    if (view.status !== 'planning') break;
  }
  return view.status === 'planning' ? (await ctx.client.getStatus(runId)).run_status : view.status;
}

const findings = (n: number) => `${n} finding${n === 1 ? '' : 's'}`;

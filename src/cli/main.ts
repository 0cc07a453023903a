#!/usr/bin/env node
/**
 * `edgeplan`: start, watch, approve and inspect runs from a terminal (SPEC §8). Exit codes: 0
 * completed (or done), 1 failed or invalid, 2 usage, 3 waiting for approval or input (not watching).
 */
import { Command, CommanderError } from 'commander';
import { EdgeplanApiError } from '../client';
import { registerDeploy } from './commands/deploy';
import { registerInit } from './commands/init';
import { registerActions } from './commands/act';
import { registerManage } from './commands/manage';
import { registerPlans } from './commands/plans';
import { registerRun } from './commands/run';
import { registerTools } from './commands/tools';
import { makeContext, type Context, type GlobalOptions } from './context';
import { EXIT, UsageError } from './exit-codes';
import { followedRun } from './follow';
import { terminalText } from './terminal-text';

const program = new Command('edgeplan')
  .description('Plan, run and watch agents on edgeplan')
  .version(process.env.EDGEPLAN_CLI_VERSION ?? '0.1.0')
  .option('-u, --url <url>', 'the API (env EDGEPLAN_URL; default http://localhost:8787)')
  .option('-t, --token <token>', 'the API token (env EDGEPLAN_TOKEN)')
  .option('--json', 'machine-readable output')
  .option('--no-color', 'no colours')
  .option(
    '--no-retry',
    'answer at once a refusal the server says to send again (429, 503 deploy_in_progress, …) instead of waiting it out',
  )
  .showHelpAfterError('(edgeplan --help lists the commands)')
  // What a script branches on (SPEC §8), where someone writing one looks first.
  .addHelpText(
    'after',
    '\nExit codes: 0 completed (or done), 1 failed, invalid or refused, 2 usage, 3 the run waits for\n' +
      'approval or input (when not watching), 130 Ctrl-C (detached; the run goes on).\n\n' +
      'Retries: a request the server refuses for now and that is safe to send again (429 rate_limited,\n' +
      '503 deploy_in_progress or deletion_pending; a read also after any 502/503/504) is sent again\n' +
      'after the Retry-After it asks for, up to 2 minutes in all, saying so on stderr; --no-retry turns\n' +
      'this off. Approve, input, cancel, retry and replan are sent again only after a 429.',
  )
  .exitOverride();

const interrupt = new AbortController();
let current: Context | undefined;
const context = () => (current ??= makeContext(program.opts<GlobalOptions>(), interrupt.signal));
let code: number = EXIT.ok;
const done = (c: number) => void (code = c);

registerRun(program, context, done);
registerManage(program, context, done);
registerActions(program, context, done);
registerPlans(program, context, done);
registerTools(program, context, done);
registerDeploy(program, done);
registerInit(program, context, done);

// `edgeplan events … | head`: a closed pipe ends the command quietly.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(EXIT.ok);
  throw err;
});

process.on('SIGINT', () => {
  if (interrupt.signal.aborted) process.exit(EXIT.interrupted);
  interrupt.abort();
  const id = followedRun();
  // Only a watch leaves something going on; any other command was merely stopped.
  process.stderr.write(
    id ? `\nDetached: the run goes on. Cancel it with: edgeplan cancel ${id}\n` : '\nInterrupted.\n',
  );
  process.exit(EXIT.interrupted);
});

// `--json` asks for JSON on stdout whatever happens, also for errors found before options are parsed.
const json = () => current?.json ?? process.argv.slice(2).includes('--json');
/** An error as one line of JSON on stdout: a whole document, and one more line after NDJSON events. */
const printFailure = (code: string, message: string, details?: unknown) =>
  process.stdout.write(
    terminalText(
      `${JSON.stringify({ error: { code, message, ...(details === undefined ? {} : { details }) } })}\n`,
    ),
  );

try {
  await program.parseAsync(process.argv);
  process.exitCode = code;
} catch (err) {
  if (err instanceof CommanderError) {
    // --help and --version end here too, with code 0; commander has said what was wrong on stderr.
    process.exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    // No command at all: commander printed the help and names its own internals ("(outputHelp)").
    const message =
      err.code === 'commander.help' ? 'no command given: edgeplan --help lists the commands' : err.message;
    if (err.exitCode !== 0 && json()) printFailure('usage', message.replace(/^error: /, ''));
  } else if (err instanceof UsageError) {
    if (json()) printFailure('usage', err.message);
    else process.stderr.write(terminalText(`edgeplan: ${err.message}\n`));
    process.exitCode = EXIT.usage;
  } else if (err instanceof EdgeplanApiError) {
    if (json()) printFailure(err.code, err.message, err.details);
    else
      process.stderr.write(
        terminalText(`edgeplan: ${err.code}: ${err.message}\n${detailLines(err.details)}${hint(err)}`),
      );
    process.exitCode = EXIT.failed;
  } else {
    const message = err instanceof Error ? err.message : String(err);
    if (json()) printFailure('internal', message);
    else process.stderr.write(terminalText(`edgeplan: ${message}\n`));
    process.exitCode = EXIT.failed;
  }
}

// The command is done: end now, once what it wrote is out. A handle a misbehaving server left open
// (a WebSocket whose close it never answers) would otherwise keep the process, and its exit code,
// waiting forever after the error was said.
await Promise.all(
  [process.stdout, process.stderr].map((s) => new Promise<void>((resolve) => s.write('', () => resolve()))),
);
process.exit();

/** What to do about an error the command line can help with. */
function hint(err: EdgeplanApiError): string {
  if (err.code === 'unauthorized') return 'Give the API token with --token <token> or EDGEPLAN_TOKEN.\n';
  const { reason, run_id } = (err.details ?? {}) as { reason?: unknown; run_id?: unknown };
  if (reason === 'run_active') {
    const id = typeof run_id === 'string' ? run_id : '<id>';
    return `Cancel it first with: edgeplan cancel ${id}, then delete it.\n`;
  }
  if (err.code === 'unreachable' || err.code === 'timeout') {
    const url = current?.url ?? '';
    const server = `Is the edgeplan server running at ${url}? Point at another with --url or EDGEPLAN_URL.\n`;
    // A create that got no answer may have made the run: the key gets that one, not a second.
    const key = (err.details as { idempotency_key?: unknown } | undefined)?.idempotency_key;
    return typeof key === 'string'
      ? `${server}If it was created, run the same command with --idempotency-key ${key} to get that run, not a second one.\n`
      : server;
  }
  return '';
}

function detailLines(details: unknown): string {
  const errors = (
    details as { errors?: { code: string; message: string; step_id?: string; line?: number }[] } | undefined
  )?.errors;
  if (!Array.isArray(errors)) return '';
  return errors
    .map(
      (f) =>
        `  ${f.line ? `line ${f.line}: ` : ''}${f.code}${f.step_id ? ` [${f.step_id}]` : ''}: ${f.message}\n`,
    )
    .join('');
}

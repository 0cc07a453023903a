/** `edgeplan run <file> | --goal "…"` and `edgeplan validate <file>`. */
import type { Command } from 'commander';
import type { CreateRunRequest, Finding } from '../../client';
import type { Context } from '../context';
import { EXIT, exitForStatus, UsageError } from '../exit-codes';
import { follow } from '../follow';
import { collect, formatOf, pairs, planRequest, readText } from '../inputs';

type RunOptions = { goal?: string; format?: string; input: string[]; config: string[]; watch?: boolean };

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
      '-c, --config <k=v>',
      'a run config field, e.g. execution_mode=parallel (repeatable)',
      collect,
      [],
    )
    .option('-w, --watch', 'follow the run to its end (default on a terminal)')
    .option('--no-watch', 'print the created run and exit')
    .action(async (file: string | undefined, o: RunOptions) => {
      const ctx = context();
      if (!file && !o.goal) throw new UsageError('run needs a plan file or --goal "…"');
      if (file && o.goal) throw new UsageError('run takes a plan file or --goal, not both');
      const body: CreateRunRequest = file ? planRequest(file, o.format) : { goal: o.goal! };
      const input = pairs(o.input, '--input');
      const config = pairs(o.config, '--config');
      if (Object.keys(input).length > 0) body.input = { ...(body.input as object), ...input };
      if (Object.keys(config).length > 0) body.config = { ...body.config, ...config };
      const created = await ctx.client.createRun(body);
      const watch = o.watch ?? ctx.tty;
      if (!watch) {
        if (ctx.json) ctx.printJson(created);
        else ctx.print(`${created.run_id}  ${created.status}`);
        return done(
          created.status === 'awaiting_approval' || created.status === 'awaiting_input'
            ? EXIT.waiting
            : EXIT.ok,
        );
      }
      if (!ctx.json && !ctx.tty) ctx.print(`run ${created.run_id}`);
      const view = await follow(ctx.client, created.run_id, {
        tty: ctx.tty && !ctx.json,
        interactive: ctx.interactive && !ctx.json,
        json: ctx.json,
        style: ctx.style,
        signal: ctx.signal,
      });
      if (ctx.signal.aborted) return;
      // One more JSON line after the events: the run as it ended.
      if (ctx.json) ctx.print(JSON.stringify(await ctx.client.getRun(created.run_id)));
      done(exitForStatus(view.status));
    });

  program
    .command('validate')
    .description('Validate a plan file: every finding, with file:line for TEA and LLMCompiler sources')
    .argument('<file>', 'the plan: .json, .yaml/.yml (TEA), .txt (LLMCompiler)')
    .option('-f, --format <format>', 'plan | tool-calls | tea-yaml | llmcompiler (default: by extension)')
    .option('-c, --config <k=v>', 'a run config field checked with the plan (repeatable)', collect, [])
    .action(async (file: string, o: { format?: string; config: string[] }) => {
      const ctx = context();
      const body = planRequest(file, o.format);
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
        const lines = jsonLines(file, o.format);
        for (const f of result.errors) {
          const line = f.line ?? (f.step_id ? lines.get(f.step_id) : undefined);
          const where = line === undefined ? file : `${file}:${line}`;
          ctx.print(
            `${where}: ${ctx.style.red('error')} ${f.code}${f.step_id ? ` [${f.step_id}]` : ''}: ${f.message}`,
          );
        }
        if (result.valid) {
          const est = 'estimates' in result && result.estimates ? result.estimates : null;
          ctx.print(
            `${ctx.style.green('✔')} ${file} is valid` +
              (est
                ? `: ${est.step_count} steps, critical path ${est.critical_path.steps.join(' → ')} (~${(est.critical_path.duration_ms / 1000).toFixed(2)} s)`
                : ''),
          );
        } else ctx.print(`${ctx.style.red('✖')} ${result.errors.length} finding(s)`);
      }
      done(result.valid ? EXIT.ok : EXIT.failed);
    });
}

/** For a JSON plan: the line each step's `"id"` is on, so findings point into the file too. */
function jsonLines(file: string, format?: string): Map<string, number> {
  const lines = new Map<string, number>();
  if (formatOf(file, format) !== 'plan') return lines;
  readText(file)
    .split('\n')
    .forEach((text, i) => {
      const m = /"id"\s*:\s*"([^"]+)"/.exec(text);
      if (m && !lines.has(m[1]!)) lines.set(m[1]!, i + 1);
    });
  return lines;
}

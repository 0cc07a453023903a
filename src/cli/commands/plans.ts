/** `plans <id>`: a run's plan versions — the list, one version (`--show v`), or two compared (`--diff a b`). */
import type { Command } from 'commander';
import { table, type Context } from '../context';
import { EXIT, UsageError } from '../exit-codes';
import { runId, wholeNumber } from '../inputs';

type Done = (code: number) => void;

export function registerPlans(program: Command, context: () => Context, done: Done): void {
  program
    .command('plans')
    .description('A run’s plan versions; --diff a b compares two, --show v prints one')
    .argument('<id>', 'run id')
    .option('-d, --diff <versions...>', 'two versions to compare')
    .option('--show <version>', 'print one version')
    .action(async (given: string, o: { diff?: string[]; show?: string }) => {
      const ctx = context();
      const id = runId(given);
      if (o.diff) {
        if (o.diff.length !== 2) throw new UsageError('--diff takes two versions, e.g. --diff 1 2');
        const [a, b] = o.diff.map((v) => wholeNumber(v, '--diff', 1));
        const d = await ctx.client.diffPlanVersions(id, a!, b!);
        if (ctx.json) return (ctx.printJson(d), done(EXIT.ok));
        ctx.print(`plan v${d.from_version} → v${d.to_version}${d.reordered ? ' (reordered)' : ''}`);
        for (const [f, c] of Object.entries(d.fields))
          ctx.print(`  ~ ${f}: ${JSON.stringify(c?.from)} → ${JSON.stringify(c?.to)}`);
        for (const s of d.added) ctx.print(ctx.style.green(`  + ${s.id}  ${s.action}`));
        for (const s of d.removed) ctx.print(ctx.style.red(`  - ${s}`));
        for (const c of d.changed) {
          const deps = [
            ...c.dependencies_added.map((x) => `+${x}`),
            ...c.dependencies_removed.map((x) => `-${x}`),
          ];
          ctx.print(
            ctx.style.yellow(
              `  ~ ${c.step_id}: ${Object.keys(c.fields).join(', ')}${deps.length ? ` deps ${deps.join(' ')}` : ''}`,
            ),
          );
        }
        return done(EXIT.ok);
      }
      if (o.show) {
        const version = wholeNumber(o.show, '--show', 1);
        return (ctx.printJson(await ctx.client.getPlanVersion(id, version)), done(EXIT.ok));
      }
      const list = await ctx.client.listPlanVersions(id);
      if (ctx.json) return (ctx.printJson(list), done(EXIT.ok));
      if (list.versions.length === 0) {
        ctx.print(
          `No plan versions yet: ${id} is being planned, or its planning failed (edgeplan runs show ${id}).`,
        );
        return done(EXIT.ok);
      }
      ctx.print(
        table([
          ['VERSION', 'CREATED (UTC)', 'REASON'],
          ...list.versions.map((v) => [`v${v.version}`, v.created_at.slice(0, 19), v.reason ?? '']),
        ]),
      );
      done(EXIT.ok);
    });
}

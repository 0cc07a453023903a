/** `tools`: the tools plans may call, and what an MCP server lists that plans cannot call, with why. */
import type { Command } from 'commander';
import { table, type Context } from '../context';
import { clip } from '../text-width';
import { terminalText } from '../terminal-text';
import { EXIT } from '../exit-codes';

type Done = (code: number) => void;

/** The most columns an unavailable tool's name takes (a valid one is `mcp.<server>.` and up to 128). */
const UNAVAILABLE_NAME_COLUMNS = 48;

export function registerTools(program: Command, context: () => Context, done: Done): void {
  program
    .command('tools')
    .description('The tools plans may call')
    .option('--refresh', 'list the MCP servers again')
    .action(async (o: { refresh?: boolean }) => {
      const ctx = context();
      const { tools, unavailable } = await ctx.client.getTools({ refresh: o.refresh });
      if (ctx.json) return (ctx.printJson({ tools, unavailable }), done(EXIT.ok));
      ctx.print(
        table([
          ['TOOL', 'DESCRIPTION'],
          ...tools.map((t) => [t.name, clip(terminalText(t.description.split('\n')[0]!), 90)]),
        ]),
      );
      // What an MCP server lists but plans cannot call (or a server that could not be listed or is misconfigured), and why.
      if (unavailable.length > 0)
        ctx.print(
          `\nUnavailable:\n${table([
            ['SERVER', 'TOOL', 'WHY'],
            // A name plans cannot call, so none to type: cut, or a server's 200-character name (a word
            // of it, in Japanese) pushed every reason past the terminal's width.
            ...unavailable.map((u) => [
              u.server,
              clip(terminalText(u.name ?? '(all)'), UNAVAILABLE_NAME_COLUMNS),
              clip(terminalText(u.reason), 120),
            ]),
          ])}`,
        );
      done(EXIT.ok);
    });
}

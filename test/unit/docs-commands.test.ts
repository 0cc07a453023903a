/**
 * The commands the README and docs/ show are commands a reader can type: each `npm run <script>` names
 * a script of the repository's package.json or the example's, and each `edgeplan <command> --flag` a command and a
 * flag the CLI defines. A script or a flag renamed leaves a copied line answering "Missing script" or
 * "unknown option"; the link and path checks do not read commands.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import rootManifest from '../../package.json';
import exampleManifest from '../../examples/custom-worker/package.json';
import { docPages, ROOT } from './doc-pages';

const PAGES = docPages({ withExample: false });
const SCRIPTS = new Set([...Object.keys(rootManifest.scripts), ...Object.keys(exampleManifest.scripts)]);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}
const CLI = sources(join(ROOT, 'src/cli'))
  .map((f) => readFileSync(f, 'utf8'))
  .join('\n');
/** The CLI's commands, as commander registers them (`.command('approve')`). */
const COMMANDS = new Set([...CLI.matchAll(/\.command\('([a-z-]+)/g)].map((m) => m[1]!));
/** Its flags, as its option definitions spell them (`'-w, --watch'`, `'--as <name>'`), and commander's own. */
const FLAGS = new Set([
  ...[...CLI.matchAll(/['"`](?:-\w, )?(--[a-z][a-z-]*)/g)].map((m) => m[1]!),
  '--help',
  '--version',
]);

/** A code span that is a command to type (`EDGEPLAN_URL=… npx edgeplan runs`), not a message quoting one. */
const COMMAND_SPAN = /^(?:[A-Z_]+=\S+\s+)*(?:npx\s+(?:--\S+\s+)*)?(?:edgeplan|npm)\s/;

/** A page's command lines: its shell blocks' lines without their comments, and its code spans that are commands. */
function commandLines(text: string): string[] {
  const shell = [...text.matchAll(/^ *```(?:sh|bash)\n([\s\S]*?)^ *```/gm)].flatMap((m) =>
    m[1]!.split('\n').map((line) => line.replace(/(^|\s)#.*$/, '')),
  );
  const spans = [...text.matchAll(/`([^`\n]+)`/g)]
    .map((m) => m[1]!)
    .filter((span) => COMMAND_SPAN.test(span));
  return [...shell, ...spans];
}

/** What in a page's commands names no script, command or flag there is, as `what (line)`. */
function unknownCommands(text: string): string[] {
  const found: string[] = [];
  for (const line of commandLines(text)) {
    for (const [, script] of line.matchAll(/\bnpm run ([\w:-]*[\w-])/g))
      if (!SCRIPTS.has(script!)) found.push(`npm run ${script} (${line.trim()})`);
    for (const [, command, rest = ''] of line.matchAll(/(?:^|[\s(|&;=])edgeplan ([a-z][a-z-]*)([^|;&]*)/g)) {
      if (!COMMANDS.has(command!)) found.push(`edgeplan ${command} (${line.trim()})`);
      for (const [, flag] of rest.matchAll(/(?:^|\s)(--[a-z][a-z-]*)/g))
        if (!FLAGS.has(flag!)) found.push(`edgeplan ${command} ${flag} (${line.trim()})`);
    }
  }
  return found;
}

describe('the commands the documentation shows', () => {
  it('reads the CLI’s commands and flags and the scripts', () => {
    expect([...COMMANDS]).toEqual(expect.arrayContaining(['run', 'approve', 'input', 'runs', 'deploy']));
    expect([...FLAGS]).toEqual(
      expect.arrayContaining(['--watch', '--no-watch', '--as', '--step', '--follow']),
    );
    expect(SCRIPTS).toContain('fake-llm');
  });

  it.each(PAGES)(
    '%s: every npm run names a script, every edgeplan command and flag one the CLI has',
    (page) => {
      expect(unknownCommands(readFileSync(join(ROOT, page), 'utf8'))).toEqual([]);
    },
  );

  it('names a missing script, command or flag, and leaves comments and other words alone', () => {
    const page = [
      '```sh',
      'npm run gen:client && npm run gen:nothing',
      'edgeplan run plan.json --watch --wach   # edgeplan packed into vendor/, --not-a-flag',
      '```',
      'Then `edgeplan approve <id> --as "Ada"`, `edgeplan aprove <id>`, `npm run size`: the bundle;',
      'the `edgeplan.bearer.<token>` subprotocol and `edgeplan/client` are not commands.',
    ].join('\n');
    expect(unknownCommands(page)).toEqual([
      'npm run gen:nothing (npm run gen:client && npm run gen:nothing)',
      'edgeplan run --wach (edgeplan run plan.json --watch --wach)',
      'edgeplan aprove (edgeplan aprove <id>)',
    ]);
  });
});

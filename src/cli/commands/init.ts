/** `edgeplan init <dir>`: a new project of a team's own Worker (src/cli/init-project.ts). */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import type { Context } from '../context';
import { EXIT } from '../exit-codes';
import { initProject } from '../init-project';

type Done = (code: number) => void;

export function registerInit(program: Command, context: () => Context, done: Done): void {
  program
    .command('init')
    .description(
      "Make a new project of your own Worker in <dir>: edgeplan's runtime plus a tool of yours, edgeplan packed into its vendor/",
    )
    .argument('<dir>', 'a new or empty directory')
    .option('--from <path>', 'the edgeplan package or checkout to make it from (default: this command’s own)')
    .action((dir: string, o: { from?: string }) => {
      const ctx = context();
      const made = initProject({ dir, from: o.from ?? ownPackage() });
      if (ctx.json) return (ctx.printJson(made), done(EXIT.ok));
      const where = relative(process.cwd(), made.dir) || '.';
      // As a shell takes it: quoted when it has a space or a quote.
      const shown = /^[\w./-]+$/.test(where) ? where : `'${where.replaceAll("'", "'\\''")}'`;
      ctx.print(
        `Made ${made.name} in ${where} from edgeplan ${made.version} (${made.files.length} files; edgeplan in ${made.tarball}).\n\n` +
          `  cd ${shown}\n  npm install && npm start     # http://localhost:8787: the dashboard, the API, your tool example.greet\n\n` +
          'Your tools are in src/tools.ts (npm test runs them in a plan); README.md says how to add secrets, deploy and take a newer edgeplan.',
      );
      done(EXIT.ok);
    });
}

/** The edgeplan package this command runs from: the nearest directory above it named so. */
function ownPackage(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && /"name"\s*:\s*"edgeplan"/.test(readFileSync(manifest, 'utf8'))) return dir;
    dir = dirname(dir);
  }
  return dirname(dirname(fileURLToPath(import.meta.url)));
}

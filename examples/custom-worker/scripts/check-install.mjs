// `npm start`'s first step (the `prestart` script): edgeplan is installed here and built, else say how
// to get it. Without this, wrangler's own errors name a missing directory — `No migrations present at
// …/node_modules/edgeplan/migrations`, `The directory specified by the "assets.directory" field … does
// not exist` — and not the fix. Exits 1 with the fix on stderr, 0 (silent) when all is there.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';

const project = process.argv[2] ?? process.cwd();
const edgeplan = join(project, 'node_modules/edgeplan');
const spec = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')).dependencies?.edgeplan ?? '';
const tarball =
  'npm install ./vendor/edgeplan-<version>.tgz, the tarball `npm pack` writes in an edgeplan checkout ' +
  '(`edgeplan init <dir>` makes a project with it in place)';

if (!existsSync(join(edgeplan, 'migrations'))) {
  fail(
    `edgeplan is not installed in ${project}: node_modules/edgeplan/migrations is missing ` +
      `(package.json has "edgeplan": "${spec}"${spec === 'file:../..' ? ', which points two directories up' : ''}). ` +
      `Install the packed tarball: ${tarball}`,
  );
} else if (!existsSync(join(edgeplan, 'dist/public'))) {
  fail(
    `edgeplan in ${project}/node_modules is not built: dist/ is missing. ` +
      (spec === 'file:../..'
        ? 'Inside the repository, build it first: (cd ../.. && npm install && npm run build)'
        : `Install the packed tarball, which comes built: ${tarball}`),
  );
}

function fail(message) {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

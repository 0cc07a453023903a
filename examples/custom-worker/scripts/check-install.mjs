// `npm start`'s first step (the `prestart` script): edgeplan is installed here and built, else say how
// to get it. Without this, wrangler's own errors name a missing directory — `No migrations present at
// …/node_modules/edgeplan/migrations`, `The directory specified by the "assets.directory" field … does
// not exist` — and not the fix. Exits 1 with the fix on stderr, 0 (silent) when all is there.
// It also catches a newer edgeplan copied over vendor/'s tarball but not installed: `npm install` and
// `npm ci` then keep the edgeplan package-lock.json records — npm's cached copy of the old tarball,
// found by the lock's integrity, since the file's name did not change — without a word.
import { createHash } from 'node:crypto';
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
} else if (stale()) {
  const file = spec.slice('file:'.length);
  fail(
    `node_modules/edgeplan in ${project} is not ${file}: the tarball changed since it was installed, and ` +
      `npm install and npm ci keep the one package-lock.json records (from npm's cache: the file's name is ` +
      `the same). Install it by its path: npm install ./${file} — then commit package-lock.json with it`,
  );
}

/**
 * The vendored tarball package.json names is not what is installed: npm's own record of the install
 * (node_modules/.package-lock.json) gives another integrity than the file's. Nothing to compare — no
 * tarball named, no record (another package manager) — is not stale.
 */
function stale() {
  if (!spec.startsWith('file:') || !spec.endsWith('.tgz')) return false;
  const file = join(project, spec.slice('file:'.length));
  const record = join(project, 'node_modules/.package-lock.json');
  if (!existsSync(file) || !existsSync(record)) return false;
  let installed;
  try {
    installed = JSON.parse(readFileSync(record, 'utf8')).packages?.['node_modules/edgeplan']?.integrity;
  } catch {
    return false; // npm's own file, unreadable: npm will say so itself
  }
  if (typeof installed !== 'string' || !installed.startsWith('sha512-')) return false;
  return installed !== `sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}`;
}

function fail(message) {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

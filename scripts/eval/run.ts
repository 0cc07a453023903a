/**
 * Entry point of `npm run eval`: `node --experimental-strip-types --no-warnings scripts/eval/run.ts`.
 * Node's type stripping cannot load the sources directly — they import each other without
 * extensions and use TypeScript parameter properties — so this bundles `main.ts` with the esbuild
 * that wrangler brings, into node_modules/.cache (packages stay external and resolve from there),
 * imports the bundle and runs it. Nothing here may import project TypeScript for the same reason.
 */

type Proc = {
  argv: string[];
  env: Record<string, string | undefined>;
  pid: number;
  exit(code?: number): never;
  stdout: { write(text: string, done?: () => void): boolean };
  stderr: { write(text: string, done?: () => void): boolean };
  getBuiltinModule(id: string): unknown;
};
type Main = (
  argv: readonly string[],
  env: Record<string, string | undefined>,
  io: { out(text: string): void; err(text: string): void },
) => Promise<number | 'serving'>;

const proc = process as Proc;
const { spawnSync } = proc.getBuiltinModule('node:child_process') as {
  spawnSync: (
    cmd: string,
    args: string[],
    opts: { stdio: 'inherit' },
  ) => { status: number | null; error?: Error };
};
const { mkdirSync, rmSync } = proc.getBuiltinModule('node:fs') as {
  mkdirSync: (path: string, opts: { recursive: true }) => void;
  rmSync: (path: string, opts: { force: true }) => void;
};

const root = new URL('../../', (import.meta as unknown as { url: string }).url);
const path = (url: URL): string => decodeURIComponent(url.pathname);
const cacheDir = new URL('node_modules/.cache/edgeplan-eval/', root);
const bundle = new URL(`eval-${proc.pid}.mjs`, cacheDir);
mkdirSync(path(cacheDir), { recursive: true });
const built = spawnSync(
  path(new URL('node_modules/.bin/esbuild', root)),
  [
    path(new URL('scripts/eval/main.ts', root)),
    '--bundle',
    '--platform=node',
    '--format=esm',
    '--packages=external',
    '--log-level=warning',
    `--outfile=${path(bundle)}`,
  ],
  { stdio: 'inherit' },
);
if (built.status !== 0) {
  proc.stderr.write(
    `eval: bundling scripts/eval/main.ts with esbuild failed (${built.error?.message ?? `exit ${built.status}`})\n`,
  );
  proc.exit(1);
}

let code: number | 'serving';
try {
  const { main } = (await import(bundle.href)) as { main: Main };
  code = await main(proc.argv.slice(2), proc.env, {
    out: (text) => void proc.stdout.write(text),
    err: (text) => void proc.stderr.write(text),
  });
} finally {
  rmSync(path(bundle), { force: true });
}
// Exit once the report is flushed (a pipe may still hold it): the LLM client's keep-alive sockets
// would otherwise hold the process open for a while.
if (code !== 'serving') {
  const exitCode = code;
  proc.stdout.write('', () => proc.stderr.write('', () => proc.exit(exitCode)));
}

export {};

/**
 * The few Node APIs the eval uses, typed here: the project's types are the Workers runtime's (no
 * `@types/node`), where `process` is `any`. Modules are fetched with `process.getBuiltinModule`
 * when first asked for, so importing this file costs nothing in a test that never calls them.
 */

/** What the eval reads from `process`. */
export type NodeProcess = {
  argv: string[];
  env: Record<string, string | undefined>;
  pid: number;
  exitCode?: number;
  exit(code?: number): never;
  stdout: { write(text: string): boolean };
  stderr: { write(text: string): boolean };
  getBuiltinModule(id: string): unknown;
  on(event: 'SIGINT' | 'SIGTERM', listener: () => void): void;
};

/** The request side of `node:http` the fake server reads. */
export type IncomingMessage = AsyncIterable<Uint8Array> & {
  method?: string;
  url?: string;
  headers: Record<string, string | string[] | undefined>;
};

/** The response side of `node:http` the fake server writes. */
export type ServerResponse = {
  writeHead(status: number, headers: Record<string, string>): void;
  end(body?: string): void;
};

export type HttpServer = {
  listen(port: number, host: string, done: () => void): void;
  address(): { port: number } | string | null;
  close(done?: () => void): void;
  on(event: 'error', listener: (err: Error) => void): void;
};

type HttpModule = {
  createServer(handler: (req: IncomingMessage, res: ServerResponse) => void): HttpServer;
};

type FsModule = {
  writeFileSync(path: string, data: string): void;
  readFileSync(path: string, encoding: 'utf8'): string;
  readdirSync(path: string, opts: { withFileTypes: true }): { name: string; isDirectory(): boolean }[];
};

/** `process`, typed. */
export function nodeProcess(): NodeProcess {
  return process as NodeProcess;
}

/** `node:http`. */
export function http(): HttpModule {
  return nodeProcess().getBuiltinModule('node:http') as HttpModule;
}

/** `node:fs`. */
export function fs(): FsModule {
  return nodeProcess().getBuiltinModule('node:fs') as FsModule;
}

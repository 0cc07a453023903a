/**
 * Vitest globalSetup of the `storage-capture` project (scripts/capture-storage-fixtures.mjs): a server
 * on 127.0.0.1 that writes each fixture the capture test posts to it — `PUT /<name>` with the
 * fixture's JSON — to `<EDGEPLAN_CAPTURE_STORAGE>/<name>.json`. The Workers runtime has no disk; this
 * is its way out. Its address reaches the test as `inject('storageSink')`.
 */
import type { TestProject } from 'vitest/node';
import { fs, http, nodeProcess } from '../../scripts/eval/node-api';
import { listenOnLoopback } from '../workers-http/free-port';

declare module 'vitest' {
  export interface ProvidedContext {
    storageSink: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = nodeProcess().env.EDGEPLAN_CAPTURE_STORAGE;
  if (!dir) throw new Error('EDGEPLAN_CAPTURE_STORAGE (the fixtures directory) is not set');
  const server = http().createServer((req, res) => {
    void (async () => {
      const name = new URL(req.url ?? '/', 'http://127.0.0.1').pathname.slice(1);
      let text = '';
      const decoder = new TextDecoder();
      for await (const chunk of req) text += decoder.decode(chunk, { stream: true });
      text += decoder.decode();
      if (req.method !== 'PUT' || !/^[a-z0-9-]+$/.test(name)) {
        res.writeHead(400, { 'content-type': 'text/plain' });
        return res.end('PUT /<name> with the fixture');
      }
      fs().writeFileSync(`${dir}/${name}.json`, `${JSON.stringify(JSON.parse(text), null, 2)}\n`);
      res.writeHead(204, {});
      res.end();
    })();
  });
  const port = await listenOnLoopback(server);
  project.provide('storageSink', `http://127.0.0.1:${port}`);
  return () => new Promise<void>((resolve) => server.close(() => resolve()));
}

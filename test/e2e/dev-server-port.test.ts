/**
 * The test servers' start (scripts/dev-server.mjs) on a port another process answers on: a foreign
 * server's `/health` must not pass for this `wrangler dev`'s. One had: a dashboard file's tests ran
 * against another file's server (taken its port between freePort() and the start), without its
 * webhook variables, and every run with a webhook_url was refused.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script without declarations
import { groupListensOn, startDevServer } from '../../scripts/dev-server.mjs';

let impostor: Server;
let port: number;
beforeAll(async () => {
  // Answers /health as edgeplan does.
  impostor = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'),
  );
  await new Promise<void>((r) => impostor.listen(0, '127.0.0.1', r));
  port = (impostor.address() as AddressInfo).port;
});
afterAll(() => impostor.close());

describe('startDevServer on a port another server answers on', () => {
  it('refuses to call it up, naming the port, instead of handing out the other server', async () => {
    await expect(startDevServer({ name: 'dev-server-port', port })).rejects.toThrow(
      `another process answers on http://127.0.0.1:${port}`,
    );
  }, 60_000);

  it('tells a port a process group listens on from one it does not (the check behind it)', () => {
    // This process's group: in /proc/self/stat, the third field after the command's parenthesis.
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const ownGroup = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
    expect(groupListensOn(ownGroup, port)).toBe(true);
    expect(groupListensOn(ownGroup + 1_000_000, port)).toBe(false);
  });
});

import { http, type HttpServer } from '../../scripts/eval/node-api.ts';

/**
 * Starts `server` on a port of 127.0.0.1 the system picks, and resolves with that port.
 * @example const port = await listenOnLoopback(http().createServer(handler));
 */
export function listenOnLoopback(server: HttpServer): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') reject(new Error('no TCP port'));
      else resolve(address.port);
    });
  });
}

/**
 * A TCP port on 127.0.0.1 that was free a moment ago: vitest.config.mts picks the MCP test server's
 * port with it, because the `MCP_SERVERS` binding naming that port is fixed before globalSetup runs.
 * @example const port = await freePort();
 */
export async function freePort(): Promise<number> {
  const server = http().createServer(() => undefined);
  const port = await listenOnLoopback(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

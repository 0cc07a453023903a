/**
 * Vitest globalSetup for the `workers-http` project: a stand-in for a Cloudflare Access team domain on
 * 127.0.0.1, publishing RS256 public keys at `/cdn-cgi/access/certs` as Access does, so the Worker
 * fetches them through the runtime's own `fetch`. Keys are made here with jose; the private halves
 * reach the tests (`inject('accessKeys')`), which sign tokens with them.
 *
 * - `GET /cdn-cgi/access/certs` → `{keys: [...]}`: key `current`, and `rotated` once it was published
 * - `POST /publish-rotated` → publishes the second key beside the first (a key rotation); 204
 * - `GET /fetches` → `{count}`: how often the certs were fetched
 *
 * The key `unpublished` is never published: a token it signs names a key the team does not have.
 */
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import type { TestProject } from 'vitest/node';
import { http } from '../../scripts/eval/node-api';
import { listenOnLoopback } from './free-port';

/** A private key for tests to sign with, and its key id. */
export type TestSigningKey = { kid: string; jwk: JWK };

declare module 'vitest' {
  export interface ProvidedContext {
    accessPort: number;
    accessKeys: { current: TestSigningKey; rotated: TestSigningKey; unpublished: TestSigningKey };
  }
}

async function makeKey(kid: string): Promise<{ private: TestSigningKey; public: JWK }> {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  const pub = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  return { private: { kid, jwk: { ...(await exportJWK(privateKey)), kid, alg: 'RS256' } }, public: pub };
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [current, rotated, unpublished] = await Promise.all([
    makeKey('kid-current'),
    makeKey('kid-rotated'),
    makeKey('kid-unpublished'),
  ]);
  const published = [current.public];
  let fetches = 0;
  const server = http().createServer((req, res) => {
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (req.method === 'GET' && req.url === '/cdn-cgi/access/certs') {
      fetches += 1;
      json(200, { keys: published });
    } else if (req.method === 'POST' && req.url === '/publish-rotated') {
      if (!published.includes(rotated.public)) published.push(rotated.public);
      res.writeHead(204, {});
      res.end();
    } else if (req.url === '/fetches') json(200, { count: fetches });
    else json(404, { error: 'not found' });
  });
  const port = await listenOnLoopback(server);
  project.provide('accessPort', port);
  project.provide('accessKeys', {
    current: current.private,
    rotated: rotated.private,
    unpublished: unpublished.private,
  });
  return () => new Promise<void>((resolve) => server.close(() => resolve()));
}

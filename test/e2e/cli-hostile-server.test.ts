/**
 * The built `edgeplan` command against a server that is not the API: a proxy's HTML page, a 200 of
 * the wrong shape, a redirect elsewhere, a WebSocket message that is not an event. Each is exit 1
 * (README: "failed, invalid or refused") with one line naming the server and what it answered —
 * never a TypeError or a stack. Against a real HTTP server on loopback.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptSocket } from '../fixtures/websocket-accept';
import { runCli } from './cli-process';

const dir = mkdtempSync(join(tmpdir(), 'edgeplan-cli-hostile-'));
const cli = join(dir, 'edgeplan.mjs');
let server: Server;
let url = '';
let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => void res.end();
let wsMessage = '';
const upgraded: Socket[] = [];

beforeAll(async () => {
  execFileSync(process.execPath, [join(process.cwd(), 'scripts/build-cli.mjs'), '--out', cli]);
  server = createServer((req, res) => handle(req, res));
  // Takes the upgrade (RFC 6455) and sends one small text frame.
  server.on('upgrade', (req: IncomingMessage, socket: Socket) => {
    upgraded.push(socket);
    acceptSocket(req, socket, [wsMessage]);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  upgraded.forEach((s) => s.destroy());
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

const edgeplan = (args: string[]) => runCli(cli, args, { cwd: dir, url });

const answer =
  (status: number, body: string, headers: Record<string, string> = {}) =>
  (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(status, headers);
    res.end(body);
  };

describe('edgeplan and a server that is not the API', () => {
  it('says a 200 of the wrong shape came from the server, exit 1, no TypeError', async () => {
    handle = answer(200, '[]', { 'content-type': 'application/json' });
    const r = await edgeplan(['show', 'run_1', '--no-retry']);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toBe(
      `edgeplan: invalid_response: ${url} answered GET /v1/runs/run_1 with 200 and a JSON array, not the JSON object the API answers with: is ${url} an edgeplan server?\n`,
    );
  });

  it('says what a proxy’s 502 page is, with --json as one JSON error on stdout', async () => {
    handle = answer(502, '<html><title>502 Bad Gateway</title></html>', { 'content-type': 'text/html' });
    const r = await edgeplan(['show', 'run_1', '--no-retry', '--json']);
    expect(r.code).toBe(1);
    const { error } = JSON.parse(r.out) as { error: { code: string; message: string } };
    expect(error.code).toBe('invalid_response');
    expect(error.message).toContain(`${url} answered GET /v1/runs/run_1 with 502 Bad Gateway`);
    expect(error.message).toContain('(text/html)');
  });

  it('does not follow a redirect, and says where it pointed', async () => {
    handle = answer(301, '', { location: 'https://elsewhere.example/v1/runs/run_1' });
    const r = await edgeplan(['show', 'run_1']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      new RegExp(
        `^edgeplan: invalid_response: ${url} answered GET /v1/runs/run_1 with 301 redirect to https://elsewhere\\.example/v1/runs/run_1`,
      ),
    );
  });

  it('ends a watch whose socket sends something that is not an event, exit 1, naming the server', async () => {
    handle = answer(200, JSON.stringify({ events: [], has_more: false }), {
      'content-type': 'application/json',
    });
    wsMessage = '<html>';
    const r = await edgeplan(['watch', 'run_1']);
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      `edgeplan: invalid_response: ${url} sent on run run_1's WebSocket a message that is not JSON: <html>`,
    );
    expect(r.err).not.toMatch(/^\s+at /m);
  });

  it('ends a watch whose socket sends an event without what its type has, exit 1, naming the event', async () => {
    handle = answer(200, JSON.stringify({ events: [], has_more: false }), {
      'content-type': 'application/json',
    });
    // A RunCreated with no config (a server of another version, or not edgeplan).
    wsMessage = JSON.stringify({
      seq: 1,
      event_type: 'RunCreated',
      timestamp: '2026-11-30T00:00:00.000Z',
      actor: 'run:run_1',
      payload: { goal: 'g' },
      references: {},
    });
    const r = await edgeplan(['watch', 'run_1']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /^edgeplan: invalid_response: event 1 \(RunCreated\) lacks what a RunCreated has \(.+\): a server of another version, or not edgeplan$/m,
    );
    expect(r.err).not.toContain('internal');
    expect(r.err).not.toMatch(/^\s+at /m);
  });

  it('says a proxy’s page of several lines on one line', async () => {
    handle = answer(
      502,
      '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\n<center><h1>502 Bad Gateway</h1></center>\n</body>\n</html>\n',
      { 'content-type': 'text/html' },
    );
    const r = await edgeplan(['show', 'run_1', '--no-retry']);
    expect(r.code).toBe(1);
    expect(r.err.split('\n')).toEqual([
      `edgeplan: invalid_response: ${url} answered GET /v1/runs/run_1 with 502 Bad Gateway that is not the API's JSON (text/html) — a proxy's page, or not an edgeplan server: <html> <head><title>502 Bad Gateway</title></head> <body> <center><h1>502 Bad Gateway</h1></center> </body> </html>`,
      '',
    ]);
  });

  it('says https to a plain-HTTP port on one line, and to ask for http://', async () => {
    handle = answer(200, '{}', { 'content-type': 'application/json' });
    const tls = url.replace('http://', 'https://');
    const r = await edgeplan(['runs', '--url', tls]);
    expect(r.code).toBe(1);
    const lines = r.err.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      new RegExp(
        `^edgeplan: unreachable: Cannot reach ${tls}: .* — TLS to a server that speaks plain HTTP: is it http://, not https://\\?$`,
      ),
    );
    expect(lines[1]).toBe(
      `Is the edgeplan server running at ${tls}? Point at another with --url or EDGEPLAN_URL.`,
    );
  });
});

describe('edgeplan and credentials a request cannot carry', () => {
  let requests = 0;
  const counted = (_req: IncomingMessage, res: ServerResponse) => {
    requests++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ runs: [], next_cursor: null }));
  };

  it('refuses a token with a line break as a usage error (2), sending nothing and echoing no token', async () => {
    handle = counted;
    requests = 0;
    const r = await edgeplan(['runs', '--token', 'first-half\nsecret-second-half']);
    expect({ code: r.code, requests }).toEqual({ code: 2, requests: 0 });
    expect(r.err).toBe(
      "edgeplan: --token holds a line break or control character at position 11: give the token alone, as the server's API_TOKEN holds it\n",
    );
    const json = await edgeplan(['runs', '--json', '--token', 'secret-\u{1F680}']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.out)).toEqual({
      error: {
        code: 'usage',
        message:
          "--token holds a character an HTTP header cannot carry at position 8: give the token alone, as the server's API_TOKEN holds it",
      },
    });
  });

  it('sends a token with a trailing line break (a file read whole) without it', async () => {
    let auth: string | undefined;
    handle = (req, res) => {
      auth = req.headers.authorization;
      counted(req, res);
    };
    const r = await edgeplan(['runs', '--token', 'tok-123\r\n']);
    expect({ code: r.code, err: r.err, auth }).toEqual({ code: 0, err: '', auth: 'Bearer tok-123' });
  });

  it('refuses a URL with a user name and password as a usage error (2), echoing no password', async () => {
    handle = counted;
    requests = 0;
    const withPassword = url.replace('http://', 'http://ada:hunter2@');
    const r = await edgeplan(['runs', '--url', withPassword]);
    expect({ code: r.code, requests }).toEqual({ code: 2, requests: 0 });
    expect(r.err).toBe(
      'edgeplan: --url must not carry a user name or password (user:…@): give the API token with --token or EDGEPLAN_TOKEN\n',
    );
  });
});

describe('edgeplan run --idempotency-key the API cannot take', () => {
  it('refuses an empty key and one with a line break as usage errors (2), before sending anything', async () => {
    let requests = 0;
    handle = (_req, res) => {
      requests++;
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ run_id: 'run_1', status: 'running' }));
    };
    writeFileSync(
      join(dir, 'plan.json'),
      JSON.stringify({ goal: 'g', steps: [{ id: 'a', action: 'demo.echo' }] }),
    );
    const broken = await edgeplan(['run', 'plan.json', '--no-watch', '--idempotency-key', 'nightly\n-1']);
    const empty = await edgeplan(['run', 'plan.json', '--no-watch', '--idempotency-key', '']);
    expect({ broken: broken.code, empty: empty.code, requests }).toEqual({
      broken: 2,
      empty: 2,
      requests: 0,
    });
    expect(broken.err).toBe(
      'edgeplan: --idempotency-key takes 1 to 255 printable ASCII characters, e.g. nightly-2026-11-29 (got "nightly\\n-1")\n',
    );
    expect(empty.err).toBe(
      'edgeplan: --idempotency-key takes 1 to 255 printable ASCII characters, e.g. nightly-2026-11-29 (got "")\n',
    );
  });
});

describe('edgeplan --json without a command', () => {
  it('says no command was given, not commander’s internals', async () => {
    const r = await edgeplan(['--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.out)).toEqual({
      error: { code: 'usage', message: 'no command given: edgeplan --help lists the commands' },
    });
  });
});

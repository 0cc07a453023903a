/**
 * edgeplan/client against a server that is not the API, or not only: a real HTTP server on loopback
 * that answers garbage, a proxy's HTML page, the wrong shape, a body without end, nothing at all, a
 * redirect elsewhere, and a WebSocket whose messages are not events or whose upgrade is never
 * answered. Each is an `EdgeplanApiError` naming the server and what was wrong — never a hang, a
 * TypeError, or a body held in memory whole.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createClient,
  DEFAULT_PLANNING_TIMEOUT_MS,
  DEFAULT_TIMEOUT_MS,
  EdgeplanApiError,
  type RunEvent,
} from '../../src/client';
import { MAX_RESPONSE_BYTES } from '../../src/client/http';
import { acceptSocket } from '../fixtures/websocket-accept';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
type Upgrade = (req: IncomingMessage, socket: Socket) => void;

let server: Server;
let base = '';
let handle: Handler = (_req, res) => void res.end();
let upgrade: Upgrade = (_req, socket) => void socket.destroy();
/** Sockets taken over by an upgrade (closeAllConnections does not know them). */
const upgraded: Socket[] = [];
/** Requests the server was asked, by path. */
const asked: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    asked.push(`${req.method} ${req.url}`);
    handle(req, res);
  });
  server.on('upgrade', (req: IncomingMessage, socket: Socket) => {
    upgraded.push(socket);
    upgrade(req, socket);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  upgraded.forEach((s) => s.destroy());
  server.closeAllConnections();
  return new Promise((r) => server.close(r));
});
beforeEach(() => void (asked.length = 0));

const client = (timeoutMs = 2_000) => createClient({ baseUrl: base, timeoutMs, retry: false });

/** What a promise rejected with (null when it resolved). */
const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e,
  );

const answer =
  (status: number, body: string, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(status, headers);
    res.end(body);
  };

describe('an answer that is not the API’s', () => {
  it('is invalid_response naming the server, the request and its status when a 200 is not JSON', async () => {
    handle = answer(200, '{"run_id": ', { 'content-type': 'application/json' });
    const err = await failure(client().getRun('run_1'));
    expect(err).toBeInstanceOf(EdgeplanApiError);
    expect(err).toMatchObject({ status: 200, code: 'invalid_response' });
    expect((err as Error).message).toContain(`${base} answered GET /v1/runs/run_1 with 200 OK`);
    expect((err as Error).message).toContain('{"run_id": ');
  });

  it('says a proxy’s 502 page is one: its status, its content type, the page’s start', async () => {
    handle = answer(502, '<html><title>502 Bad Gateway</title></html>', { 'content-type': 'text/html' });
    const err = await failure(client().getRun('run_1'));
    expect(err).toMatchObject({ status: 502, code: 'invalid_response' });
    expect((err as Error).message).toMatch(
      new RegExp(`^${base} answered GET /v1/runs/run_1 with 502 Bad Gateway .*\\(text/html\\).*<title>502`),
    );
  });

  it.each([
    ['a JSON array', '[]'],
    ['JSON null', 'null'],
    ['a JSON string', '"ok"'],
    ['no body', ''],
  ])('is invalid_response, not a run, when a 200 carries %s', async (what, body) => {
    handle = answer(200, body, { 'content-type': 'application/json' });
    const err = await failure(client().getRun('run_1'));
    expect(err).toMatchObject({ status: 200, code: 'invalid_response' });
    expect((err as Error).message).toContain(`${base} answered GET /v1/runs/run_1 with 200 and ${what}`);
  });
});

describe('a body too large, or without end', () => {
  it('stops reading past MAX_RESPONSE_BYTES, without the rest, when the size is not declared', async () => {
    let written = 0;
    let gone = false;
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    handle = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.on('close', () => (gone = true));
      // Three times the cap, unless the client hangs up first.
      const more = () => {
        while (!gone && written < 3 * MAX_RESPONSE_BYTES) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end('{}');
      };
      more();
    };
    const err = await failure(client(60_000).getRun('run_1'));
    expect(err).toMatchObject({ status: 200, code: 'invalid_response' });
    expect((err as Error).message).toContain(`${base} answered GET /v1/runs/run_1 with more than 64 MiB`);
    expect(written).toBeLessThan(3 * MAX_RESPONSE_BYTES);
    // 64 MiB through loopback: seconds on a loaded machine, past the project's 20 s on a busy one.
  }, 90_000);

  it('refuses a declared Content-Length over the cap before reading any of it', async () => {
    handle = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 2 * MAX_RESPONSE_BYTES });
      res.write('{');
    };
    const err = await failure(client(60_000).getRun('run_1'));
    expect(err).toMatchObject({ code: 'invalid_response' });
    expect((err as Error).message).toContain('more than 64 MiB');
  });

  it('gives up on a body that drips forever at the client’s timeoutMs', async () => {
    handle = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{');
      const drip = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(drip));
    };
    const err = await failure(client(500).getRun('run_1'));
    expect(err).toMatchObject({ status: 0, code: 'timeout' });
    // The answer began: said so, not "no answer", which would send the reader after the network.
    expect((err as Error).message).toBe(
      `${base} began answering GET /v1/runs/run_1 (200) but the answer did not finish within 0.5 s`,
    );
  });

  it('gives up on a connection that is taken and never answered', async () => {
    handle = () => undefined;
    const err = await failure(client(500).listRuns());
    expect(err).toMatchObject({ status: 0, code: 'timeout' });
    expect((err as Error).message).toBe(`No answer from ${base} to GET /v1/runs within 0.5 s`);
  });

  it('gives up creating a run within the call’s timeoutMs, saying in sentences which key gets the run', async () => {
    handle = () => undefined;
    const err = await failure(
      client().createRun({ plan: { steps: [{ id: 'a', action: 'demo.echo' }] } }, { timeoutMs: 500 }),
    );
    expect(err).toMatchObject({ status: 0, code: 'timeout' });
    expect((err as Error).message).toMatch(
      /^No answer to creating the run within 0\.5 s \(.*\)\. It may have been created: send the request again with Idempotency-Key \S+ to get that run, not a second one\.$/,
    );
  });
});

describe('a server that never answers, and a client that sets no timeoutMs', () => {
  // The clock the limit counts on is moved by hand: the server, the sockets and fetch are real.
  beforeEach(() => void vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] }));
  afterEach(() => void vi.useRealTimers());

  /** The call, once the server holds its request unanswered; `settled` tells whether it ended. */
  async function held<T>(send: () => Promise<T>) {
    const taken = new Promise<ServerResponse>((r) => (handle = (_req, res) => r(res)));
    let settled = false;
    const outcome = failure(send()).finally(() => (settled = true));
    // A call that ends before the server holds it fails here, rather than leaving the test waiting.
    const early = outcome.then((e) => {
      throw new Error(`the call ended before the server took it: ${String(e)}`);
    });
    const res = await Promise.race([taken, early]);
    return { res, outcome, settled: () => settled };
  }

  it('gives up after DEFAULT_TIMEOUT_MS (a minute, as the CLI): not a caller held forever', async () => {
    expect(DEFAULT_TIMEOUT_MS).toBe(60_000);
    const call = await held(() => createClient({ baseUrl: base, retry: false }).getRun('run_1'));
    await vi.advanceTimersByTimeAsync(DEFAULT_TIMEOUT_MS - 1);
    expect(call.settled()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const err = await call.outcome;
    expect(err).toMatchObject({ status: 0, code: 'timeout' });
    expect((err as Error).message).toBe(`No answer from ${base} to GET /v1/runs/run_1 within 60 s`);
  });

  it('gives planGoal five minutes: planning asks a model, repairs and falls back', async () => {
    const call = await held(() => createClient({ baseUrl: base, retry: false }).planGoal({ goal: 'g' }));
    await vi.advanceTimersByTimeAsync(DEFAULT_PLANNING_TIMEOUT_MS - 1);
    expect(call.settled()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await call.outcome).toMatchObject({ code: 'timeout' });
  });

  it.each([0, Infinity])('waits as long as it takes with timeoutMs: %s', async (timeoutMs) => {
    const call = await held(() => createClient({ baseUrl: base, retry: false, timeoutMs }).getRun('run_1'));
    await vi.advanceTimersByTimeAsync(60 * 60_000);
    expect(call.settled()).toBe(false);
    call.res.writeHead(200, { 'content-type': 'application/json' });
    call.res.end(JSON.stringify({ run_id: 'run_1', status: 'running' }));
    // Resolved, with the run: nothing to fail with.
    expect(await call.outcome).toBeNull();
  });
});

describe('a redirect', () => {
  let elsewhere: Server;
  let elsewhereUrl = '';
  const elsewhereAsked: string[] = [];
  beforeAll(async () => {
    elsewhere = createServer((req, res) => {
      elsewhereAsked.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ runs: [], run_id: 'run_elsewhere', status: 'completed', links: {} }));
    });
    await new Promise<void>((r) => elsewhere.listen(0, '127.0.0.1', r));
    elsewhereUrl = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    elsewhere.closeAllConnections();
    return new Promise((r) => elsewhere.close(r));
  });

  it.each([301, 302, 307, 308])(
    'is not followed (%i): the error names where it points, and nothing is asked there',
    async (status) => {
      elsewhereAsked.length = 0;
      handle = answer(status, '', { location: `${elsewhereUrl}/v1/runs/run_1` });
      const err = await failure(client().getRun('run_1'));
      expect(err).toMatchObject({ status, code: 'invalid_response' });
      expect((err as Error).message).toContain(
        `${base} answered GET /v1/runs/run_1 with ${status} redirect to ${elsewhereUrl}/v1/runs/run_1`,
      );
      // Two sentences, the second ended as the first.
      expect((err as Error).message).toMatch(/\. Point the client at .*\.$/);
      expect(elsewhereAsked).toEqual([]);
    },
  );

  it('does not turn a create into another server’s GET (a 301 from http to https)', async () => {
    elsewhereAsked.length = 0;
    handle = answer(301, '', { location: `${elsewhereUrl}/v1/runs` });
    const err = await failure(client().createRun({ plan: { steps: [{ id: 'a', action: 'demo.echo' }] } }));
    expect(err).toMatchObject({ status: 301, code: 'invalid_response' });
    expect(elsewhereAsked).toEqual([]);
  });
});

const emptyPage = answer(200, JSON.stringify({ events: [], has_more: false }), {
  'content-type': 'application/json',
});

/** Every event the watch yields, or the error it threw. */
async function watched(timeoutMs = 2_000): Promise<{ events: RunEvent[]; error: unknown }> {
  const events: RunEvent[] = [];
  try {
    for await (const e of client(timeoutMs).watch('run_1', { transport: 'websocket' })) events.push(e);
    return { events, error: null };
  } catch (error) {
    return { events, error };
  }
}

describe('a WebSocket that does not carry run events', () => {
  it('ends the watch with invalid_response naming the server and the run when a message is not JSON', async () => {
    handle = emptyPage;
    upgrade = (req, socket) => acceptSocket(req, socket, ['{"seq": ']);
    const { events, error } = await watched();
    expect(events).toEqual([]);
    expect(error).toMatchObject({ status: 0, code: 'invalid_response' });
    expect((error as Error).message).toBe(
      `${base} sent on run run_1's WebSocket a message that is not JSON: {"seq": `,
    );
  });

  it.each([
    ['null'],
    ['{}'],
    ['{"seq": 0, "event_type": "RunCreated"}'],
    ['{"seq": "1", "event_type": "X"}'],
  ])('yields nothing and says so when a message is JSON but not an event: %s', async (message) => {
    handle = emptyPage;
    upgrade = (req, socket) => acceptSocket(req, socket, [message]);
    const { events, error } = await watched();
    expect(events).toEqual([]);
    expect(error).toMatchObject({ status: 0, code: 'invalid_response' });
    expect((error as Error).message).toContain(
      `${base} sent on run run_1's WebSocket a message with something`,
    );
  });

  it('ends the watch with invalid_response when /events answers without its list', async () => {
    handle = answer(200, JSON.stringify({ has_more: false }), { 'content-type': 'application/json' });
    const events: RunEvent[] = [];
    const error = await failure(
      (async () => {
        for await (const e of client().watch('run_1', { transport: 'poll' })) events.push(e);
      })(),
    );
    expect(events).toEqual([]);
    expect(error).toMatchObject({ code: 'invalid_response' });
    expect((error as Error).message).toContain(
      `${base} answered GET /v1/runs/run_1/events without its "events" list`,
    );
  });

  it('falls back to polling when the upgrade is taken and never answered, within the client’s timeoutMs', async () => {
    const ended = {
      seq: 1,
      event_type: 'RunTerminated',
      actor: 'run:run_1',
      payload: { status: 'completed' },
    };
    handle = (req, res) => {
      const after = new URL(req.url!, base).searchParams.get('after');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ events: after === '0' ? [ended] : [], has_more: false }));
    };
    upgrade = () => undefined;
    const events: RunEvent[] = [];
    for await (const e of client(500).watch('run_1')) events.push(e);
    expect(events.map((e) => e.seq)).toEqual([1]);
    expect(asked).toContain('GET /v1/runs/run_1/events?after=0&limit=500');
  });
});

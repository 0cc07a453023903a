/**
 * The schema-driven fuzz (test/fuzz/*) over real HTTP against `wrangler dev`: the generated requests
 * through Node's fetch, then what no fetch client sends — raw bytes on a socket: Content-Length lies,
 * malformed chunks, bytes that are not UTF-8 in the request line and headers, a URI past 64 KiB, a
 * POST that asks for a WebSocket upgrade. What workerd (or wrangler dev's proxy in front of the
 * Worker) answers before the app is asked is listed in RUNTIME with what it answers: known, not ours.
 * `EDGEPLAN_FUZZ_PORT` picks the dev server's port (a free one otherwise).
 */
import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRequest, describeRequest, type FuzzRequest } from '../fuzz/api-requests';
import { answerOf, HANG_MS, problemWith, type Answer } from '../fuzz/response-check';
// @ts-expect-error -- a plain .mjs script without declarations
import { startDevServer } from '../../scripts/dev-server.mjs';

const SEED = 2026_05_02;
let server: { base: string; port: number; stop(): void };
const ids: string[] = [];

async function startRun(config: Record<string, unknown>): Promise<string> {
  const plan = { steps: [{ id: 'a', action: 'demo.echo', parameters: { text: 'a' } }] };
  const res = await fetch(`${server.base}/v1/runs`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ plan, config }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { run_id: string }).run_id;
}

beforeAll(async () => {
  const port = process.env.EDGEPLAN_FUZZ_PORT ? Number(process.env.EDGEPLAN_FUZZ_PORT) : undefined;
  server = (await startDevServer({
    name: 'fuzz',
    ...(port ? { port, extraArgs: ['--inspector-port', String(port + 1)] } : {}),
  })) as typeof server;
  ids.push(await startRun({ require_plan_approval: true }), await startRun({}), 'run_0000000000000000');
}, 120_000);

afterAll(() => server?.stop());

/** Node's fetch refuses some headers (Upgrade, Transfer-Encoding) before sending: not a request. */
function refusedByClient(err: unknown): boolean {
  const cause = (err as { cause?: { code?: string } }).cause;
  return err instanceof TypeError && (cause?.code === 'UND_ERR_INVALID_ARG' || !('cause' in err));
}

/** A raw HTTP/1.1 exchange: the bytes sent, the answer's status, Content-Type and body. */
function raw(bytes: Buffer): Promise<Answer | { hang: true }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect(server.port, '127.0.0.1');
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ hang: true });
    }, HANG_MS);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      resolve({
        status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0),
        contentType: /^content-type: *(.*)$/im.exec(head)?.[1]?.trim() ?? '',
        // Chunked answers: the JSON between the chunk sizes.
        text: /transfer-encoding: *chunked/i.test(head)
          ? rest.join('\r\n\r\n').replace(/^[0-9a-f]+\r\n|\r\n[0-9a-f]+\r\n/gi, '')
          : rest.join('\r\n\r\n'),
      });
    });
    socket.end(bytes);
  });
}

const request = (head: string, body: string | Buffer = '') =>
  Buffer.concat([
    Buffer.from(`${head}\r\nHost: x\r\nConnection: close\r\n\r\n`, 'latin1'),
    Buffer.from(body),
  ]);
const json = (line: string, length: number | string, body: string | Buffer, extra = '') =>
  request(`${line}\r\nContent-Type: application/json\r\nContent-Length: ${length}${extra}`, body);

/** Raw requests the app answers itself: below 500, refusals in its envelope. */
const APP: Record<string, Buffer> = {
  'Content-Length shorter than the body': json(
    'POST /v1/plans/validate HTTP/1.1',
    5,
    '{"plan": {"steps": []}}',
  ),
  'Content-Length 0 with a body': json('POST /v1/runs HTTP/1.1', 0, '{"plan": {"steps": []}}'),
  'Content-Length and Transfer-Encoding both': json(
    'POST /v1/runs HTTP/1.1',
    2,
    '2\r\n{}\r\n0\r\n\r\n',
    '\r\nTransfer-Encoding: chunked',
  ),
  'a body that is not UTF-8': json('POST /v1/runs HTTP/1.1', 4, Buffer.from([0x22, 0xff, 0xfe, 0x22])),
  'a gzip Content-Encoding on plain JSON': json(
    'POST /v1/runs HTTP/1.1',
    2,
    '{}',
    '\r\nContent-Encoding: gzip',
  ),
  'a body over 5 MiB': json(
    'POST /v1/runs HTTP/1.1',
    6 * 1024 * 1024 + 12,
    `{"goal": "${'x'.repeat(6 * 1024 * 1024)}"}`,
  ),
  'raw UTF-8 in the path': Buffer.concat([
    Buffer.from('GET /v1/runs/'),
    Buffer.from('🙂'),
    Buffer.from(' HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
  ]),
  'a GET with a body': json('GET /v1/runs HTTP/1.1', 2, '{}'),
  'an absolute URI': request('GET http://evil.example/v1/runs HTTP/1.1'),
  TRACE: request('TRACE /v1/runs HTTP/1.1'),
  'a 200 KB Authorization header': request(
    `GET /v1/runs HTTP/1.1\r\nAuthorization: Bearer ${'a'.repeat(200_000)}`,
  ),
  '500 headers': request(
    `GET /v1/runs HTTP/1.1\r\n${Array.from({ length: 500 }, (_, i) => `X-H${i}: v`).join('\r\n')}`,
  ),
  'a WebSocket upgrade without Sec-WebSocket-Key': request(
    'GET /v1/runs/run_0000000000000000/ws HTTP/1.1\r\nUpgrade: websocket',
  ),
};

/**
 * Raw requests answered before the app sees them, and the status each gets (workerd's HTTP parser
 * in plain text, or wrangler dev's proxy). The 500s are the local runtime's, not the Worker's: a
 * deployed Worker sits behind Cloudflare's edge, which refuses these itself.
 */
const RUNTIME: Record<string, { bytes: Buffer; status: number }> = {
  'a negative Content-Length': { bytes: json('POST /v1/runs HTTP/1.1', -1, '{}'), status: 400 },
  'two Content-Lengths': {
    bytes: json('POST /v1/runs HTTP/1.1', 2, '{}', '\r\nContent-Length: 3'),
    status: 400,
  },
  'a raw 0xFF byte in the path': {
    bytes: Buffer.concat([
      Buffer.from('GET /v1/runs/'),
      Buffer.from([0xff]),
      Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n'),
    ]),
    status: 400,
  },
  'a space in the path': { bytes: request('GET /v1/runs/a b HTTP/1.1'), status: 400 },
  'a URI past 64 KiB': { bytes: request(`GET /v1/runs/${'a'.repeat(70_000)} HTTP/1.1`), status: 414 },
  'a NUL in a header': {
    bytes: Buffer.concat([
      Buffer.from('GET /v1/runs HTTP/1.1\r\nHost: x\r\nX-A: '),
      Buffer.from([0xff, 0x00]),
      Buffer.from('\r\n\r\n'),
    ]),
    status: 400,
  },
  'no Host': { bytes: Buffer.from('GET /health HTTP/1.1\r\nConnection: close\r\n\r\n'), status: 400 },
  'HTTP/1.0 without Host': { bytes: Buffer.from('GET /health HTTP/1.0\r\n\r\n'), status: 400 },
  // wrangler dev's proxy: "TypeError: Fetch API cannot load: http://x*/".
  'OPTIONS *': { bytes: request('OPTIONS * HTTP/1.1'), status: 500 },
  CONNECT: { bytes: request('CONNECT 127.0.0.1:1 HTTP/1.1'), status: 500 },
  // wrangler dev's proxy loses the body ("Network connection lost"); the app answers such a body 400
  // (test/workers/fuzz-findings.test.ts).
  'a malformed chunk size': {
    bytes: request(
      'POST /v1/runs HTTP/1.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked',
      'zz\r\n{}\r\n0\r\n\r\n',
    ),
    status: 500,
  },
};

describe('fuzz against wrangler dev', () => {
  it('answers generated requests over HTTP below 500, refusals in the envelope, none hangs', async () => {
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(apiRequest(ids), async (req: FuzzRequest) => {
        let answer: Answer | { hang: true };
        try {
          answer = await answerOf((signal) =>
            fetch(`${server.base}${req.target}`, {
              method: req.method,
              headers: req.headers,
              ...(req.body === undefined ? {} : { body: req.body }),
              signal,
            }),
          );
        } catch (err) {
          expect(refusedByClient(err), `${describeRequest(req)}: ${String(err)}`).toBe(true);
          return;
        }
        sent++;
        expect(problemWith(req, answer), describeRequest(req)).toBeNull();
      }),
      { seed: SEED, numRuns: 250 },
    );
    expect(sent).toBeGreaterThan(200);
  }, 120_000);

  it.each(Object.entries(APP))(
    'answers %s itself: below 500, a refusal in the envelope',
    async (name, bytes) => {
      const answer = await raw(bytes);
      const req: FuzzRequest = { operation: name, method: 'POST', target: '/raw', headers: {} };
      expect('status' in answer && answer.status).toBeGreaterThanOrEqual(200);
      expect(problemWith(req, answer)).toBeNull();
    },
  );

  it.each(Object.entries(RUNTIME))(
    'leaves %s to the runtime, which answers before the app',
    async (_name, { bytes, status }) => {
      const answer = await raw(bytes);
      expect('status' in answer && answer.status).toBe(status);
      // Not the app's answer (no envelope): the runtime's own, in plain text or none.
      expect('text' in answer && answer.text.includes('"error":{"code"')).toBe(false);
    },
  );

  it('answers a POST that asks for a WebSocket upgrade as the GET workerd turns it into', async () => {
    const body = '{"decision":"reject"}';
    const answer = await raw(
      json('POST /health HTTP/1.1', body.length, body, '\r\nUpgrade: websocket\r\nConnection: Upgrade'),
    );
    // /health takes GET only: a 200 shows the method reached the app as GET.
    expect('status' in answer && answer.status).toBe(200);
  });
});

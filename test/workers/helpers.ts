import { exports } from 'cloudflare:workers';

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export async function api(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Json; headers: Headers }> {
  const init: RequestInit = { method, headers: { 'content-type': 'application/json' } };
  if (body !== undefined) init.body = JSON.stringify(body);
  const res = await exports.default.fetch(new Request(`http://edgeplan.test${path}`, init));
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Json) : {}, headers: res.headers };
}

export async function startRun(plan: unknown, config: unknown = {}, input?: unknown): Promise<string> {
  const r = await api('POST', '/v1/runs', { plan, config, input });
  if (r.status !== 201) throw new Error(`POST /v1/runs → ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.run_id as string;
}

const TERMINAL = new Set(['completed', 'failed', 'aborted', 'cancelled']);

/** Polls the run until `done` holds (default: a terminal status); fails after `timeoutMs`. */
export async function waitForRun(
  runId: string,
  done: (run: Json) => boolean = (r) => TERMINAL.has(r.status),
  timeoutMs = 10_000,
): Promise<Json> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await api('GET', `/v1/runs/${runId}`);
    if (r.status === 200 && done(r.body)) return r.body;
    if (Date.now() > deadline)
      throw new Error(
        `run ${runId} did not get there in ${timeoutMs} ms: ${JSON.stringify(r.body).slice(0, 2000)}`,
      );
    await new Promise((res) => setTimeout(res, 10));
  }
}

export async function events(runId: string, after = 0): Promise<Json[]> {
  const r = await api('GET', `/v1/runs/${runId}/events?after=${after}&limit=1000`);
  return r.body.events as Json[];
}

/** A run of one `human.input` step `ask` ("Ship it?"), once it waits for the answer. */
export async function askingRun(): Promise<string> {
  const ask = { id: 'ask', action: 'human.input', parameters: { prompt: 'Ship it?' } };
  const runId = await startRun({ goal: 'ask someone', steps: [ask] });
  await waitForRun(runId, (r) => r.status === 'awaiting_input');
  return runId;
}

/** The payloads of the run's `InputReceived` events, oldest first. */
export async function inputsReceived(runId: string): Promise<Json[]> {
  return (await events(runId)).filter((e) => e.event_type === 'InputReceived').map((e) => e.payload as Json);
}

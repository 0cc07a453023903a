/**
 * An MCP tool call cut short by the loss of the run's instance (a crash or an eviction) while the
 * server has it: the run's alarm makes the call again as the same attempt — same idempotency key and
 * attempt number in `_meta`, in a new session — and the run records one result, the repeat's answer
 * (what README's MCP section promises). The server is test/workers-http/mcp-stateful-server.ts's
 * `holding` (vitest.config.mts), whose `hold` tool answers only when the test releases it.
 */
import { abortAllDurableObjects, runDurableObjectAlarm } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, inject, it, vi } from 'vitest';
import { events, startRun, waitForRun, type Json } from '../workers/helpers';

const base = `http://127.0.0.1:${inject('statefulMcpPort')}`;
const PATH = '/s/hold-e2e';

type HoldCall = { key: string; attempt: number; session: string; answered: boolean };

const control = async (what: string, q: string) =>
  expect((await fetch(`${base}/${what}?path=${PATH}&${q}`, { method: 'POST' })).status).toBe(204);
const lost = async (): Promise<number> =>
  (await (await fetch(`${base}/s-stats?path=${PATH}`)).json<{ lost: number }>()).lost;
const calls = async (tag: string): Promise<HoldCall[]> =>
  (await fetch(`${base}/s-calls?path=${PATH}&tag=${tag}`)).json();

const CASES = [
  { name: 'the server kept its sessions', restart: '' },
  // The server restarted too, and forgets the session edgeplan opens for the repeat right after
  // opening it: the repeat is lost with that session and made in another.
  { name: 'the server lost the session of the repeat', restart: 'after_init=1' },
];

describe('an MCP call cut short by a crash of its run', () => {
  for (const c of CASES) {
    it(`is made again as the same attempt and recorded once (${c.name})`, async () => {
      const tag = crypto.randomUUID();
      await control('s-hold', `tag=${tag}`);
      const runId = await startRun({
        steps: [
          { id: 'call', action: 'mcp.holding.hold', parameters: { tag } },
          {
            id: 'after',
            action: 'demo.echo',
            parameters: { n: '{{ steps.call.output.call }}' },
            dependencies: ['call'],
          },
        ],
      });
      await vi.waitFor(async () => expect(await calls(tag)).toHaveLength(1), {
        timeout: 5_000,
        interval: 25,
      });
      // The instance dies with the call out; the server answers it afterwards, to no one.
      await abortAllDurableObjects();
      await control('s-release', `tag=${tag}`);
      await vi.waitFor(async () => expect((await calls(tag))[0]!.answered).toBe(true));
      if (c.restart) await control('s-restart', c.restart);
      const lostBefore = await lost();
      expect(await runDurableObjectAlarm(env.PLAN_RUN.getByName(runId))).toBe(true);
      const run = await waitForRun(runId);
      expect(run.status).toBe('completed');
      // The repeat's own session is lost once after a restart; the session this isolate kept from an
      // earlier call (the first case's repeat) is forgotten by the restart too, and replaced first.
      expect(c.restart ? [1, 2] : [0]).toContain((await lost()) - lostBefore);
      const seen = await calls(tag);
      // Both calls as one attempt with one key: what a server dedupes on.
      expect(seen.map((s) => [s.key, s.attempt, s.answered])).toEqual([
        [`${runId}:call`, 1, true],
        [`${runId}:call`, 1, true],
      ]);
      expect(seen[1]!.session).not.toBe(seen[0]!.session);
      // One result, the repeat's.
      expect(run.step_results.call).toEqual({ tag, call: 2 });
      expect(run.step_results.after).toEqual({ n: 2 });
      const log = await events(runId);
      const of = (type: string) =>
        log.filter((e: Json) => e.event_type === type && e.payload.step_id === 'call');
      expect(of('ToolReturned').map((e) => [e.payload.attempt, e.payload.success])).toEqual([[1, true]]);
      expect(of('ToolInvoked').map((e) => e.payload.attempt)).toEqual([1]);
      expect(log.map((e) => e.seq)).toEqual(log.map((_e, i) => i + 1));
    });
  }
});

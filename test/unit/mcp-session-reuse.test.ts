/**
 * The sessions an isolate keeps for MCP tool calls (src/mcp/session-reuse.ts): one per server URL and
 * headers, used until it is MCP_SESSION_REUSE_MS old, then retired and handed out to be ended once no
 * call runs in it. The clock is an argument; each test uses a URL of its own (the kept sessions are
 * the module's).
 */
import { describe, expect, it } from 'vitest';
import { MCP_SESSION_REUSE_MS, retireSessions, sessionReuse } from '../../src/mcp/session-reuse';

let t = 0;
const clock = () => t;
const url = (name: string) => `https://mcp.example/${name}`;

describe('kept MCP sessions', () => {
  it('keeps the first session a call offers and hands it to the next call; a second one is not kept', () => {
    const s = sessionReuse(url('first'), { Authorization: 'Bearer a' }, clock);
    expect(s.take()).toBeNull();
    expect(s.offer('one', '2025-06-18', null)).toBe(true);
    // Another call that opened its own meanwhile ends it.
    expect(s.offer('two', '2025-06-18', null)).toBe(false);
    const taken = s.take();
    expect(taken).toMatchObject({ id: 'one', protocolVersion: '2025-06-18' });
    s.release(taken!);
    expect(s.offer('one', '2025-06-18', taken)).toBe(true);
  });

  it('keeps one per header set: other credentials do not share it', () => {
    const a = sessionReuse(url('creds'), { Authorization: 'Bearer a', 'X-A': '1' }, clock);
    expect(a.offer('a', undefined, null)).toBe(true);
    expect(sessionReuse(url('creds'), { 'X-A': '1', Authorization: 'Bearer a' }, clock).take()?.id).toBe('a');
    expect(sessionReuse(url('creds'), { Authorization: 'Bearer b' }, clock).take()).toBeNull();
  });

  it('retires a session once it is MCP_SESSION_REUSE_MS old, to be ended once no call runs in it', () => {
    t = 1_000;
    const s = sessionReuse(url('aged'), {}, clock);
    s.offer('old', undefined, null);
    const busy = s.take()!;
    t += MCP_SESSION_REUSE_MS;
    expect(s.take()).toBeNull();
    // A call still runs in it: not handed out to be ended yet.
    expect(s.retired()).toEqual([]);
    s.release(busy);
    expect(s.retired().map((r) => r.id)).toEqual(['old']);
    expect(s.retired()).toEqual([]);
    // The call that was in it does not put it back; a new one is kept.
    expect(s.offer('old', undefined, busy)).toBe(false);
    expect(s.offer('new', undefined, null)).toBe(true);
  });

  it('drops a session the server forgot, and retires a server’s sessions when it is listed again', () => {
    const s = sessionReuse(url('forgot'), {}, clock);
    s.offer('gone', undefined, null);
    s.forget('gone');
    expect(s.take()).toBeNull();
    expect(s.retired()).toEqual([]);
    s.offer('listed', undefined, null);
    retireSessions(url('forgot'));
    expect(s.take()).toBeNull();
    expect(s.retired().map((r) => r.id)).toEqual(['listed']);
  });
});

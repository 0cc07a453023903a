/**
 * What an isolate remembers of MCP servers that keep no sessions (src/mcp/stateless-servers.ts): per
 * server URL and headers, whether a call may go without a handshake and in which protocol version,
 * for MCP_SESSION_REUSE_MS or until the server's tools are listed again. The clock is an argument;
 * each test uses a URL of its own (what is remembered is the module's).
 */
import { describe, expect, it } from 'vitest';
import { MCP_SESSION_REUSE_MS } from '../../src/mcp/session-reuse';
import { forgetStatelessServers, statelessServer } from '../../src/mcp/stateless-servers';

let t = 0;
const clock = () => t;
const url = (name: string) => `https://mcp.example/${name}`;

describe('MCP servers that keep no sessions', () => {
  it('knows nothing of a server at first, then calls it in the version its handshake negotiated', () => {
    const s = statelessServer(url('first'), { Authorization: 'Bearer a' }, clock);
    expect(s.bareVersion()).toBeNull();
    s.keepsNoSessions('2025-06-18');
    expect(statelessServer(url('first'), { Authorization: 'Bearer a' }, clock).bareVersion()).toBe(
      '2025-06-18',
    );
  });

  it('remembers per header set, in any order, and not for other credentials', () => {
    statelessServer(url('creds'), { A: '1', B: '2' }, clock).keepsNoSessions('2025-06-18');
    expect(statelessServer(url('creds'), { B: '2', A: '1' }, clock).bareVersion()).toBe('2025-06-18');
    expect(statelessServer(url('creds'), { A: '1', B: '3' }, clock).bareVersion()).toBeNull();
  });

  it('keeps a server that refused a call without a handshake wanting one, whatever its later handshakes say', () => {
    const s = statelessServer(url('wants'), {}, clock);
    s.keepsNoSessions('2025-06-18');
    s.wantsHandshake();
    expect(s.bareVersion()).toBeNull();
    // Its next calls' handshakes are answered without a session too: it is not tried bare again.
    s.keepsNoSessions('2025-06-18');
    expect(s.bareVersion()).toBeNull();
  });

  it('forgets either after MCP_SESSION_REUSE_MS: a server that wanted the handshake is tried without it again', () => {
    t = 1_000;
    const s = statelessServer(url('aged'), {}, clock);
    s.wantsHandshake();
    t += MCP_SESSION_REUSE_MS - 1;
    s.keepsNoSessions('2025-06-18');
    expect(s.bareVersion()).toBeNull();
    t += 1;
    s.keepsNoSessions('2025-06-18');
    expect(s.bareVersion()).toBe('2025-06-18');
    t += MCP_SESSION_REUSE_MS;
    expect(s.bareVersion()).toBeNull();
  });

  it('forgets a server that gave a session, and every header set of a server listed again', () => {
    const s = statelessServer(url('sessions'), {}, clock);
    s.keepsNoSessions('2025-06-18');
    s.forget();
    expect(s.bareVersion()).toBeNull();
    statelessServer(url('listed'), { A: '1' }, clock).keepsNoSessions('2025-06-18');
    statelessServer(url('listed'), { A: '2' }, clock).wantsHandshake();
    statelessServer(url('other'), {}, clock).keepsNoSessions('2025-03-26');
    forgetStatelessServers(url('listed'));
    expect(statelessServer(url('listed'), { A: '1' }, clock).bareVersion()).toBeNull();
    // It no longer wants the handshake: the next one answered without a session says so again.
    const b = statelessServer(url('listed'), { A: '2' }, clock);
    b.keepsNoSessions('2025-06-18');
    expect(b.bareVersion()).toBe('2025-06-18');
    expect(statelessServer(url('other'), {}, clock).bareVersion()).toBe('2025-03-26');
  });

  it('remembers 64 servers at most, forgetting the one remembered longest ago', () => {
    const many = Array.from({ length: 65 }, (_, i) => statelessServer(url(`many-${i}`), {}, clock));
    for (const s of many) s.keepsNoSessions('2025-06-18');
    expect(many[0]!.bareVersion()).toBeNull();
    expect(many.slice(1).every((s) => s.bareVersion() === '2025-06-18')).toBe(true);
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import { connectionNotes } from '../../src/cli/follow';
import { EdgeplanApiError } from '../../src/client';

describe("the CLI's notes on how a run is followed", () => {
  afterEach(() => vi.restoreAllMocks());

  it('says a switch to HTTP once, though a capped run refuses every socket tried again meanwhile', () => {
    const written: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (written.push(String(chunk)), true));
    const notes = connectionNotes('run_1');
    const capped = new EdgeplanApiError(429, 'too_many_sockets', 'Run "run_1" has 100 WebSockets open');
    // Refused, then refused again at each Retry-After: one note.
    notes.onTransport('poll', capped);
    notes.onTransport('poll', capped);
    notes.onTransport('poll', capped);
    expect(written).toEqual([
      'run_1 has as many WebSockets open as it serves (too_many_sockets); following it over HTTP instead.\n',
    ]);
    // Back on the socket, then capped again: each switch said once.
    notes.onTransport('websocket', null);
    notes.onTransport('websocket', null);
    notes.onTransport('poll', capped);
    expect(written.slice(1)).toEqual([
      'Following run_1 over its WebSocket again.\n',
      'run_1 has as many WebSockets open as it serves (too_many_sockets); following it over HTTP instead.\n',
    ]);
  });
});

// The memory of a `wrangler dev` under soak: the resident set (VmRSS) of each workerd process in the
// server's process group, and the V8 heap of the Worker's isolate (the Worker and its run objects share
// it locally) through wrangler's inspector proxy (`Runtime.getHeapUsage`). The proxy refuses a
// connection without an `Origin` it knows, hence the header.
import { readFileSync, readdirSync } from 'node:fs';

/** The pids of the workerd processes in process group `pgid`. */
export function workerdPids(pgid) {
  const pids = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid pgrp …: comm may hold spaces, so read after its closing parenthesis.
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const pgrp = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2];
      if (comm === 'workerd' && pgrp === String(pgid)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/**
 * Whether workerd `pid` runs the Worker (Miniflare's runtime, the one with an inspector address) rather
 * than wrangler's proxy in front of it (the dev port's listener, which holds none of edgeplan's code).
 */
export function runsTheWorker(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\0')
      .some((a) => a.startsWith('--inspector-addr='));
  } catch {
    return false;
  }
}

/** VmRSS in KiB of `pid`, 0 when it is gone. */
export function rssKiB(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/**
 * A connection to the isolate's inspector at `port`; `heap()` resolves with `{used, total}` in bytes,
 * or null when the inspector does not answer within 5 s (it is then asked again at the next sample).
 */
export async function inspector(port) {
  let ws = null;
  let id = 0;
  const pending = new Map();
  const connect = async () => {
    const list = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
    const socket = new WebSocket(list[0].webSocketDebuggerUrl, { headers: { Origin: 'http://127.0.0.1' } });
    await new Promise((resolve, reject) => {
      socket.onopen = resolve;
      socket.onerror = reject;
    });
    socket.onmessage = (m) => {
      const d = JSON.parse(String(m.data));
      pending.get(d.id)?.(d);
      pending.delete(d.id);
    };
    socket.onclose = () => (ws = null);
    return socket;
  };
  const call = (method) =>
    new Promise((resolve) => {
      const i = ++id;
      const timer = setTimeout(() => {
        pending.delete(i);
        resolve(null);
      }, 5_000);
      pending.set(i, (d) => {
        clearTimeout(timer);
        resolve(d);
      });
      ws.send(JSON.stringify({ id: i, method, params: {} }));
    });
  return {
    async heap() {
      try {
        ws ??= await connect();
        const d = await call('Runtime.getHeapUsage');
        return d?.result ? { used: d.result.usedSize, total: d.result.totalSize } : null;
      } catch {
        ws = null;
        return null;
      }
    },
    close() {
      ws?.close();
    },
  };
}

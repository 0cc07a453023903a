import { inject } from 'vitest';

/** The loopback server's port and origin (test/workers-http/loopback-server.ts). */
export const port = inject('httpPort');
export const base = `http://127.0.0.1:${port}`;

/** How many requests the server has had for `path` (no query). */
export async function hits(path: string): Promise<number> {
  const res = await fetch(`${base}/hits`);
  const all: Record<string, number> = await res.json();
  return all[path] ?? 0;
}

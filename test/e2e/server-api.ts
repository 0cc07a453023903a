/**
 * JSON calls to a `wrangler dev` the test kills and starts again: `base()` is read at each call, so
 * the calls follow the server across restarts.
 */
import { expect } from 'vitest';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export function serverApi(base: () => string) {
  /** Any method; the body parsed as JSON (`{}` when empty), whatever the status. */
  async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
    const res = await fetch(`${base()}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
  }
  /** A GET that must answer 200. */
  async function get(path: string): Promise<Json> {
    const r = await call('GET', path);
    expect(r.status, `GET ${path}: ${JSON.stringify(r.body)}`).toBe(200);
    return r.body;
  }
  return { call, get };
}

/** Gap-free `seq` from 1: the trace lost nothing and recorded nothing twice under one number. */
export const gapFree = (events: readonly { seq?: unknown }[]) =>
  expect(events.map((e) => e.seq)).toEqual(events.map((_e, i) => i + 1));

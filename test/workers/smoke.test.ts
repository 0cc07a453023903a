import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';

describe('worker smoke', () => {
  it('serves requests and has bindings', async () => {
    const res = await exports.default.fetch('http://x/nope');
    expect(res.status).toBe(404);
    await env.KV.put('a', 'b');
    expect(await env.KV.get('a')).toBe('b');
    // The migrations ran: the run index is there (other files' runs may be in it).
    const r = await env.DB.prepare('select count(*) as n from runs').first<{ n: number }>();
    expect(r?.n).toBeGreaterThanOrEqual(0);
  });
});

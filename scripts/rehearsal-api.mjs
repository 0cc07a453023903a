/**
 * What the rehearsals (scripts/upgrade-rehearsal.mjs, scripts/rollout-rehearsal.mjs) share: calling the
 * API of the server they have up, waiting for a condition, and counting the checks that failed.
 *
 * @example
 * const api = rehearsalApi(() => server.base);
 * const run = await api.until('run r1', async () => (await api.call('GET', '/v1/runs/r1')).body, (r) => r.status === 'completed');
 * api.check('completed', run.status === 'completed');
 * process.exit(api.report());
 */
export function rehearsalApi(base, { waitMs = 60_000 } = {}) {
  let failed = 0;
  return {
    /** One request; the body parsed as JSON (`{ text }` when it is not JSON, `{}` when empty). */
    async call(method, path, body, headers = {}) {
      const res = await fetch(`${base()}${path}`, {
        method,
        headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      let json = {};
      try {
        json = text ? JSON.parse(text) : {};
      } catch {
        json = { text };
      }
      return { status: res.status, body: json, headers: res.headers };
    },
    /** `read()` every 200 ms until `done` holds of its value (returned); throws after `ms`. */
    async until(what, read, done, ms = waitMs) {
      for (const end = Date.now() + ms; ; await new Promise((r) => setTimeout(r, 200))) {
        const v = await read();
        if (done(v)) return v;
        if (Date.now() > end)
          throw new Error(`${what}: not within ${ms} ms (last: ${JSON.stringify(v).slice(0, 400)})`);
      }
    },
    /** One line per check: `ok` or `FAIL`, with what was seen. */
    check(name, ok, detail = '') {
      if (!ok) failed += 1;
      console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? ` — ${detail}` : ''}`);
    },
    /** A failure outside a check (an exception): counted with the checks. */
    fail(err) {
      failed += 1;
      console.log(`FAIL ${err?.stack ?? err}`);
    },
    /** Prints the tally and returns the exit code: 0 when every check passed. */
    report() {
      console.log(failed === 0 ? '\nall checks passed' : `\n${failed} check(s) failed`);
      return failed === 0 ? 0 : 1;
    },
  };
}

// The soak's HTTP client: every request counted by status class, and each 5xx (or a request that
// threw) kept with what was asked — a soak's first job is to find those, its second to watch memory.

/** A client of the server at `base` with bearer `token`. */
export function soakClient(base, token) {
  const counts = { requests: 0, '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0, failed: 0 };
  const problems = [];
  const note = (what, detail) => {
    if (problems.length < 50) problems.push(`${what}: ${detail}`.slice(0, 400));
  };
  /**
   * One request; `body` an object (sent as JSON) or a string (sent as it is). Resolves with
   * `{status, body}` (body parsed when JSON), or `{status: 0}` when the request itself failed.
   */
  async function api(method, path, body, headers = {}) {
    counts.requests++;
    try {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
        signal: AbortSignal.timeout(90_000),
      });
      const text = await res.text();
      counts[`${Math.floor(res.status / 100)}xx`]++;
      let parsed = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: kept as text
      }
      if (res.status >= 500) note(`${method} ${path.slice(0, 120)} → ${res.status}`, text);
      return { status: res.status, body: parsed };
    } catch (err) {
      counts.failed++;
      note(`${method} ${path.slice(0, 120)} threw`, err?.message ?? String(err));
      return { status: 0, body: null };
    }
  }
  return { api, counts, problems, note };
}

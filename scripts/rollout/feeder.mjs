/**
 * A Worker of the rehearsal's own, put in front of `edgeplan-front` for the checks of what reaches a
 * Worker other than by HTTP (scripts/rollout/dead-letter.mjs): it hands every request on to the front
 * unchanged, and `POST /__rehearsal/dead-letter` sends its body to the `steps-dlq` queue — the message
 * the queue itself sends there once the `steps` consumer has failed on it `max_retries` times (about an
 * hour of retries in a rollback; here at once). The consumers that take it are the releases' own.
 * `/__rehearsal/new/<path>` goes to the Worker whose run objects the front calls, as `<path>`: in the
 * reverse direction, a request a rollout routes to the new version.
 *
 * @example
 * writeFileSync('feeder.toml', feederConfig(work)); // then `wrangler dev -c feeder.toml -c front.toml -c objects.toml`
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const NEW = '/__rehearsal/new/';
const WORKER = `export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname.startsWith('${NEW}')) {
      url.pathname = url.pathname.slice(${NEW.length - 1});
      return env.OBJECTS.fetch(new Request(url, request));
    }
    if (url.pathname !== '/__rehearsal/dead-letter') return env.FRONT.fetch(request);
    await env.DLQ.send(await request.json());
    return new Response('sent');
  },
};
`;

/** Writes the feeder's code into `dir` and returns its wrangler config. */
export function feederConfig(dir) {
  writeFileSync(join(dir, 'feeder.mjs'), WORKER);
  return `name = "rehearsal-feeder"
main = "${dir}/feeder.mjs"
compatibility_date = "2026-11-01"

[[services]]
binding = "FRONT"
service = "edgeplan-front"

[[services]]
binding = "OBJECTS"
service = "edgeplan"

[[queues.producers]]
queue = "steps-dlq"
binding = "DLQ"
`;
}

/**
 * The README's `edgeplan/client` example as a user's program, type-checked (`npm run typecheck`) with
 * the strictest settings a consumer may have (`exactOptionalPropertyTypes`): the client's options take
 * values that may be undefined, as `process.env` gives them. It is compiled, not run.
 */
import { createClient, EdgeplanApiError, type WatchOptions } from '../../src/client';

const client = createClient({ baseUrl: 'http://localhost:8787', token: process.env.EDGEPLAN_TOKEN });
const { run_id } = await client.createRun({
  plan: { goal: 'greet', steps: [{ id: 'a', action: 'demo.echo', parameters: { value: 'hi' } }] },
});
const after = process.env.AFTER === undefined ? undefined : Number(process.env.AFTER);
const options: WatchOptions = { after, signal: AbortSignal.timeout(60_000), reconnectForMs: undefined };
for await (const e of client.watch(run_id, options)) {
  if (e.event_type === 'ToolReturned') console.log(e.payload.step_id, e.payload.latency_ms); // typed payload
}
console.log((await client.getRun(run_id)).final_output);
await client.approve(run_id, { comment: process.env.COMMENT }).catch((err: unknown) => {
  if (err instanceof EdgeplanApiError) console.log(err.status, err.code);
});

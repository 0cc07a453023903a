/**
 * Run objects as a release before 2026-11-29's (ae03508) answers a create: this release's object
 * behind a shim of the older release's create answer — no `format` in it, an Idempotency-Key's
 * fingerprint ignored (no replay: `run_exists`), and `run_exists` for a run deleted a moment ago; a
 * decision whose body names `plan_version` refused as an unknown key; an answer's `question_seq`
 * argument never read. Its cancel and DELETE are the real ones. For the tests of a deploy rolling out (rollout-create.test.ts,
 * client-retry.test.ts).
 */
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import worker from '../../src/worker';
import type { Json } from './helpers';
import type { CreateRunRequest, CreatedRun } from '../../src/durable/run-requests';
import type { RpcResult } from '../../src/durable/rpc-result';

/** `env.PLAN_RUN` whose objects answer a create as the releases before 2026-11-29's (ae03508) do. */
export function olderObjects(): Env['PLAN_RUN'] {
  const older = {
    getByName(name: string) {
      const stub = env.PLAN_RUN.getByName(name);
      return {
        async create(req: CreateRunRequest): Promise<RpcResult<Omit<CreatedRun, 'format' | 'replayed'>>> {
          const { fingerprint: _ignored, ...sent } = req;
          const r = (await stub.create(sent)) as RpcResult<CreatedRun>;
          if (r.ok) {
            const { run_id, status, outbox } = r.value;
            return { ok: true, value: { run_id, status, outbox } };
          }
          if (r.error.code === 'run_deleted')
            return { ok: false, error: { code: 'run_exists', message: `Run ${name} was deleted` } };
          return r;
        },
        cancel: (reason?: string) => stub.cancel(reason),
        // A decision's body parsed strictly, without plan_version (2026-11-30): the key is refused as
        // unknown, as that release's schema refuses any; a fourth argument it never reads.
        approve: (body: unknown, token?: string, caller?: Parameters<typeof stub.approve>[2]) => {
          if (typeof body === 'object' && body !== null && 'plan_version' in body)
            return Promise.resolve({
              ok: false,
              error: { code: 'invalid_request', message: '(root): Unknown key "plan_version"' },
            });
          return stub.approve(body, token, caller);
        },
        // An answer's question (2026-11-30) is a fifth argument that release never reads.
        input: (input: unknown, stepId?: string, by?: string, caller?: Parameters<typeof stub.input>[3]) =>
          stub.input(input, stepId, by, caller),
        deleteRun: () => stub.deleteRun(),
        // Methods that release did not have, refused as workerd refuses them.
        reserveChildRun: () => Promise.reject(notImplemented('reserveChildRun')),
        countChildRun: () => Promise.reject(notImplemented('countChildRun')),
      };
    },
  };
  return older as unknown as Env['PLAN_RUN'];
}

/** What workerd throws for an RPC method the object does not have. */
function notImplemented(method: string): TypeError {
  return new TypeError(`The RPC receiver does not implement "${method}".`);
}

/** A JSON `POST` to this release's Worker whose run objects are `ns` (this release's, or {@link olderObjects}). */
export async function postThrough(
  ns: Env['PLAN_RUN'],
  path: string,
  body: unknown,
): Promise<{ status: number; body: Json }> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`http://edgeplan.test${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
    { ...env, PLAN_RUN: ns },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: await res.json<Json>() };
}

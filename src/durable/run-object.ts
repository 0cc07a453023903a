/**
 * A run's object as the Worker calls it: its stub, with every method's refusal of a run a newer
 * release wrote (newer-format-refusal.ts) thrown again in the Worker, as the error it was. The
 * object answers such a run with a value, so workerd does not log each refusal as an uncaught
 * exception; the Worker's callers catch the error as they always have (`503 run_newer_format`, a
 * queue message retried later).
 * @example const r = await runObject(env.PLAN_RUN, runId).getRun(); // throws for a newer format
 */
import { isNewerFormatRefusal, unlessNewerFormat, type NewerFormatRefusal } from './newer-format-refusal';

type Stub = ReturnType<Env['PLAN_RUN']['getByName']>;
/** The object's class, as the binding names it. */
type RunClass = Env['PLAN_RUN'] extends DurableObjectNamespace<infer T> ? T : never;

/** What the stub has besides the object's RPC methods. */
const PASSED = new Set(['fetch', 'id', 'name']);

/** The object's RPC methods (plan-run.ts). */
type RpcMethod = Exclude<
  keyof RunClass,
  'fetch' | 'alarm' | 'webSocketMessage' | 'webSocketClose' | 'webSocketError' | 'leases'
>;

/**
 * The object's methods as the Worker calls them, each answering its value without the refusal (thrown
 * instead); typed from the class — the stub's serialised types of some answers are wide enough that
 * removing the refusal from them removed everything.
 */
export type RunObject = {
  [K in RpcMethod]: RunClass[K] extends (...args: infer A) => infer R
    ? (...args: A) => Promise<Exclude<Awaited<R>, NewerFormatRefusal>>
    : never;
} & Pick<Stub, 'fetch' | 'id' | 'name'>;

export function runObject(ns: Env['PLAN_RUN'], runId: string): RunObject {
  const stub = ns.getByName(runId);
  return new Proxy(stub, {
    get(target, prop) {
      // Not a thenable (an RPC stub's `then` would be a call of a method named so).
      if (prop === 'then') return undefined;
      // `fetch` answers with a Response of its own (plan-run.ts); `id` and `name` are the stub's own.
      if (typeof prop !== 'string' || PASSED.has(prop)) {
        const v = Reflect.get(target, prop) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      }
      const methods = target as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
      return async (...args: unknown[]) => {
        const answer = await methods[prop]!(...args);
        return isNewerFormatRefusal(answer) ? unlessNewerFormat(answer) : answer;
      };
    },
  }) as unknown as RunObject;
}

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

/** The stub's methods, each answering its value without the refusal (thrown instead). */
export type RunObject = {
  [K in keyof Stub]: Stub[K] extends (...args: infer A) => PromiseLike<infer R>
    ? (...args: A) => Promise<Exclude<R, NewerFormatRefusal>>
    : Stub[K];
};

export function runObject(ns: Env['PLAN_RUN'], runId: string): RunObject {
  const stub = ns.getByName(runId);
  return new Proxy(stub, {
    get(target, prop) {
      // `fetch` answers with a Response of its own (plan-run.ts); nothing else but methods is read.
      if (typeof prop !== 'string' || prop === 'fetch') {
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

/**
 * Bindings that count the calls made through them: what one invocation sends, measured where
 * Cloudflare counts its subrequests (workerd under Vitest enforces no limit on them).
 */

/** A stub whose every method call is counted (an RPC stub answers any name with a method). */
export function countedStub(stub: object, calls: { n: number }): object {
  return new Proxy(stub, {
    get(target, prop) {
      if (prop === 'then') return undefined;
      const v: unknown = Reflect.get(target, prop);
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        calls.n++;
        // Reflect.apply: an RPC method's own `.apply` would be a call of a remote method named so.
        return Reflect.apply(v as (...a: unknown[]) => unknown, target, args);
      };
    },
  });
}

/** A Durable Object namespace whose stubs count their calls. */
export function countedNamespace(ns: DurableObjectNamespace, calls: { n: number }): object {
  return new Proxy(ns, {
    get(target, prop) {
      const v: unknown = Reflect.get(target, prop);
      if (typeof v !== 'function') return v;
      if (prop === 'getByName' || prop === 'get')
        return (...args: unknown[]) =>
          countedStub(Reflect.apply(v as (...a: unknown[]) => object, target, args), calls);
      return (v as (...a: unknown[]) => unknown).bind(target);
    },
  });
}

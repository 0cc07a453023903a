/** The tool registry for a request's bindings, built once per bindings object. */
import type { ToolRegistry } from '../executor/registry';
import { workerToolRegistry } from '../durable/tools';

// Workers hand every request of an isolate the same `env` object, so this builds one registry per
// isolate; tests that pass their own bindings get their own.
const registries = new WeakMap<Env, ToolRegistry>();

/**
 * The registry `DEMO_TOOLS` / `HTTP_ALLOWLIST` in `env` call for.
 * @example toolRegistryFor(c.env).describe()
 */
export function toolRegistryFor(env: Env): ToolRegistry {
  let registry = registries.get(env);
  if (!registry) {
    // Spread: `Env` is an interface, which TypeScript will not match against ToolEnv's index signature.
    registry = workerToolRegistry({ ...env });
    registries.set(env, registry);
  }
  return registry;
}

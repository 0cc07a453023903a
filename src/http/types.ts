/**
 * The types every HTTP module shares: the Hono environment and the app a route module registers on.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { ToolRegistry } from '../executor/registry';
import type { Clock, IdSource } from '../plan/model';

/**
 * Who a request is from, as auth established it: an identity Cloudflare Access verified (an email, or a
 * service token's common_name), the holder of an API token (no identity), or no one (an open API or
 * an approval link, which carries its own capability).
 */
export type Caller = { via: 'access'; identity: string } | { via: 'token' } | { via: 'anonymous' };

/** Per-request variables set by {@link createApp} before any route runs. */
export type AppVariables = {
  /** Where handlers read the time (injectable so tests can pin it). */
  clock: Clock;
  /** Where handlers get new ids: `ids.id('run')` → `run_<random>`. */
  ids: IdSource;
  /** The Worker's tool registry for these bindings: built-ins, demo tools when on, the team's own. */
  tools: () => ToolRegistry;
  /** Who the request is from: anonymous until auth says otherwise (src/http/middleware/access-auth.ts, auth.ts). */
  caller: Caller;
};

/** The Hono environment of the edgeplan app: Worker bindings plus {@link AppVariables}. */
export type AppEnv = { Bindings: Env; Variables: AppVariables };

/** The app route modules register on (`registerXRoutes(app: App)`). */
export type App = OpenAPIHono<AppEnv>;

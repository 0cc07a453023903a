/** Bindings and variables (wrangler.toml). Secrets are optional: the service runs without them. */
declare namespace Cloudflare {
  interface Env {
    PLAN_RUN: DurableObjectNamespace<import('./durable/plan-run').PlanRun>;
    COUNTERS: DurableObjectNamespace<import('./executor/tools/demo-counters').DemoCounters>;
    STEPS: Queue<import('./durable/messages').StepMessage>;
    DB: D1Database;
    KV: KVNamespace;
    /** Static assets (wrangler.toml `[assets]`: the API reference and the dashboard); absent in a Worker deployed without them. */
    ASSETS?: Fetcher;
    DEMO_TOOLS?: string;
    HTTP_ALLOWLIST?: string;
    /** The bearer token, or several separated by commas or line breaks (a rotation: src/api-tokens.ts). */
    API_TOKEN?: string;
    /** `true`: without API_TOKEN the API is open (local use); otherwise it answers 401. */
    ALLOW_ANONYMOUS?: string;
    /** Cloudflare Access team domain (`https://<team>.cloudflareaccess.com`); with ACCESS_AUD, Access identities are accepted (src/http/access). */
    ACCESS_TEAM_DOMAIN?: string;
    /** The Access application's audience (AUD) tag; with ACCESS_TEAM_DOMAIN. */
    ACCESS_AUD?: string;
    /** Comma-separated origins allowed by CORS; unset or empty: no CORS headers. */
    CORS_ORIGINS?: string;
    /** Optional rate-limit binding (wrangler.toml `[[ratelimits]]`); absent: no limit. */
    RATE_LIMITER?: RateLimit;
    OPENAI_API_KEY?: string;
    OPENAI_BASE_URL?: string;
    PLANNER_MODEL?: string;
    PLANNER_FALLBACK_MODELS?: string;
    /** Signs approval webhooks: `whsec_<base64>`, or several separated by commas, spaces or line breaks (a rotation: src/approval/webhook.ts). */
    WEBHOOK_SECRET?: string;
    /** JSON array of MCP servers whose tools become `mcp.<name>.<tool>` (src/mcp/config.ts). */
    MCP_SERVERS?: string;
    /** Days an ended run is kept before it deletes itself (src/durable/retention.ts); unset: kept until deleted. */
    RUN_RETENTION_DAYS?: string;
    /** Child runs one run's tree may start, 1–100,000 (src/durable/child-run-limits.ts); unset: 1,000. */
    MAX_CHILD_RUNS?: string;
    /** Subrequests one queue-consumer invocation may make (src/durable/subrequest-budget.ts): `50` on Workers Free; unset: 1,000. */
    SUBREQUESTS_PER_INVOCATION?: string;
    /** Tests only: D1 migrations read by vitest.config.mts. */
    TEST_MIGRATIONS: import('cloudflare:test').D1Migration[];
  }
  interface GlobalProps {
    mainModule: typeof import('./worker');
    durableNamespaces: 'PlanRun' | 'DemoCounters';
  }
}
type Env = Cloudflare.Env;

/**
 * The two Workers of a rollout rehearsed under `wrangler dev` (scripts/rollout-rehearsal.mjs): one in
 * front, named `edgeplan-front`, with the queue consumers and a PLAN_RUN binding that names the class
 * `PlanRun` of the other; the other, named `edgeplan` as deployed, whose run objects the front calls.
 * Both share D1 and KV. Which release's code each runs is the direction rehearsed:
 *
 *   forward  this release in front of the old release's run objects
 *   reverse  the old release in front of this release's run objects
 *
 * @example
 * const { front, objects } = rolloutConfigs('/repo', '/tmp/old').reverse;
 * writeFileSync('front.toml', front); // then `wrangler dev -c front.toml -c objects.toml`
 */

const D1 = (dir) => `[[d1_databases]]
binding = "DB"
database_name = "edgeplan"
database_id = "00000000-0000-0000-0000-000000000000"
migrations_dir = "${dir}/migrations"

[[kv_namespaces]]
binding = "KV"
id = "00000000000000000000000000000000"
`;
const ALIASES = (dir) => `[alias]
"ajv" = "${dir}/src/mcp/ajv-stub.ts"
"ajv-formats" = "${dir}/src/mcp/ajv-stub.ts"
"zod" = "${dir}/src/zod-english/index.ts"
`;
// Approval webhooks go to the rehearsal's receiver on loopback: the front checks the URL when it
// creates the run, the object sends the webhook.
const HEAD = (name, dir, vars) => `name = "${name}"
main = "${dir}/src/worker.ts"
compatibility_date = "2026-11-01"
compatibility_flags = ["nodejs_compat"]

[vars]
DEMO_TOOLS = "true"
ALLOW_ANONYMOUS = "true"
HTTP_ALLOWLIST = "127.0.0.1"
WEBHOOK_SECRET = "whsec_dGVzdHNlY3JldHRlc3RzZWNyZXQ="
${Object.entries(vars)
  .map(([k, v]) => `${k} = ${JSON.stringify(v)}\n`)
  .join('')}`;
const OWN_CLASSES = `[[durable_objects.bindings]]
name = "COUNTERS"
class_name = "DemoCounters"

[[migrations]]
tag = "v1"
new_sqlite_classes = ["PlanRun", "DemoCounters"]

[[queues.producers]]
queue = "steps"
binding = "STEPS"
`;

/**
 * The Worker in front: its own consumers, the other Worker's run objects, and its release's dashboard
 * (its built `public/`, as wrangler.toml serves it): a page the front serves runs that release's script.
 */
function frontConfig(dir, vars) {
  return `${HEAD('edgeplan-front', dir, vars)}
[assets]
directory = "${dir}/public"
binding = "ASSETS"
run_worker_first = ["/v1/*", "/mcp", "/health"]
[[durable_objects.bindings]]
name = "PLAN_RUN"
class_name = "PlanRun"
script_name = "edgeplan"

${OWN_CLASSES}
[[queues.consumers]]
queue = "steps"
max_batch_size = 100
max_batch_timeout = 0
max_retries = 10
dead_letter_queue = "steps-dlq"

[[queues.consumers]]
queue = "steps-dlq"
max_batch_size = 100
max_retries = 3

${D1(dir)}
${ALIASES(dir)}`;
}

/** The Worker whose run objects the front calls; its objects send steps, the front consumes them. */
function objectsConfig(dir, vars) {
  return `${HEAD('edgeplan', dir, vars)}
[[durable_objects.bindings]]
name = "PLAN_RUN"
class_name = "PlanRun"

${OWN_CLASSES}
${D1(dir)}
${ALIASES(dir)}`;
}

/** Both directions' configs; `vars`: more variables, for both Workers (RUN_RETENTION_DAYS, say). */
export function rolloutConfigs(root, oldRoot, vars = {}) {
  return {
    forward: { front: frontConfig(root, vars), objects: objectsConfig(oldRoot, vars) },
    reverse: { front: frontConfig(oldRoot, vars), objects: objectsConfig(root, vars) },
  };
}

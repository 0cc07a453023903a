/**
 * The pure half of `edgeplan deploy`: what wrangler.toml asks for, what wrangler's list commands
 * answer, and the deploy config with the real ids. No I/O here, so it is tested without wrangler.
 */

/** A KV namespace wrangler.toml binds, and its title on the account: `<worker>-<binding in lower case>`. */
export type WantedNamespace = { binding: string; title: string };

/**
 * What a Worker's wrangler.toml names: the Worker, its D1 database, its KV namespaces (edgeplan's `KV`
 * and any of the team's own), its queues.
 */
export type WantedResources = {
  worker: string;
  database: string;
  namespaces: WantedNamespace[];
  queues: string[];
};

/** The resources wrangler.toml names. */
export function wantedResources(toml: string): WantedResources {
  const worker = /^name\s*=\s*"([^"]+)"/m.exec(toml)?.[1];
  const database = /^database_name\s*=\s*"([^"]+)"/m.exec(toml)?.[1];
  // Every namespace, not only edgeplan's: one a tool of the team's binds would otherwise be deployed
  // with its placeholder id.
  const bindings = [
    ...new Set(blocks(toml, 'kv_namespaces').flatMap((part) => field(part, 'binding') ?? [])),
  ];
  const queues = [
    ...new Set([...toml.matchAll(/^(?:queue|dead_letter_queue)\s*=\s*"([^"]+)"/gm)].map((m) => m[1]!)),
  ];
  if (!worker || !database || bindings.length === 0)
    throw new Error('wrangler.toml lacks name, database_name or a KV binding');
  const namespaces = bindings.map((binding) => ({ binding, title: `${worker}-${binding.toLowerCase()}` }));
  return { worker, database, namespaces, queues };
}

/** The binding edgeplan's run objects send ready steps through (src/env.d.ts). */
export const STEPS_BINDING = 'STEPS';

/**
 * Why a Worker with this wrangler.toml would leave steps in its queue, or null: the queue bound as
 * `STEPS` has no `[[queues.consumers]]` block (runs would carry every step out in their objects, after
 * waiting for each to be taken: `queue_not_consumed`), or the dead-letter queue the steps consumer
 * names has none (dead-lettered steps would wait for their deadline). Top-level blocks only, as the
 * rest of this file reads them (an `[env.*]` section is not looked at).
 */
export function unconsumedQueues(toml: string): string | null {
  const producers = blocks(toml, 'queues.producers');
  const consumers = blocks(toml, 'queues.consumers');
  const consumed = new Set(consumers.map((c) => field(c, 'queue')));
  const steps = producers.find((p) => field(p, 'binding') === STEPS_BINDING);
  const queue = steps && field(steps, 'queue');
  if (!queue) return null;
  const consumerBlock = (name: string) =>
    `[[queues.consumers]]\nqueue = "${name}"${name === queue ? '\nmax_batch_size = 100\nmax_batch_timeout = 0' : ''}`;
  if (!consumed.has(queue))
    return (
      `wrangler.toml sends steps to queue "${queue}" ([[queues.producers]] binding ${STEPS_BINDING}) but has ` +
      `no [[queues.consumers]] for it, so no step sent there would be taken (each run would wait on it, ` +
      `then carry it out in its own object: queue_not_consumed). Add\n\n${consumerBlock(queue)}\n\n` +
      'to wrangler.toml, and export the queue handler from the Worker (export default edgeplan.default — ' +
      'it has fetch and queue).'
    );
  const dlq = field(
    consumers.find((c) => field(c, 'queue') === queue)!,
    'dead_letter_queue',
  );
  if (dlq && !consumed.has(dlq))
    return (
      `wrangler.toml dead-letters steps to queue "${dlq}" but has no [[queues.consumers]] for it, so a step ` +
      `dead-lettered there would wait for its deadline instead of failing at once (dead_lettered). Add\n\n` +
      `${consumerBlock(dlq)}\n\nto wrangler.toml.`
    );
  return null;
}

/** The `[[name]]` blocks of `toml`, each as its text. */
function blocks(toml: string, name: string): string[] {
  return toml.split(/^(?=\[)/m).filter((part) => part.startsWith(`[[${name}]]`));
}

/** A `key = "value"` of a block. */
function field(part: string, key: string): string | undefined {
  return new RegExp(`^${key}\\s*=\\s*"([^"]+)"`, 'm').exec(part)?.[1];
}

/** The JSON array in a command's output (wrangler may print a banner or warnings around it). */
export function jsonArray(output: string): unknown[] {
  const start = output.indexOf('[');
  const end = output.lastIndexOf(']');
  if (start < 0 || end < start)
    throw new Error(`expected a JSON list from wrangler, got: ${output.slice(0, 200)}`);
  return JSON.parse(output.slice(start, end + 1)) as unknown[];
}

/** `wrangler d1 list --json` → the uuid of the database called `name`. */
export function d1Id(output: string, name: string): string | undefined {
  return (jsonArray(output) as { uuid?: string; name?: string }[]).find((db) => db.name === name)?.uuid;
}

/** `wrangler kv namespace list` → the id of the namespace titled `title`. */
export function kvId(output: string, title: string): string | undefined {
  return (jsonArray(output) as { id?: string; title?: string }[]).find((ns) => ns.title === title)?.id;
}

/** `wrangler queues list` (a table) → the queue names in it. */
export function queueNames(output: string): Set<string> {
  const names = new Set<string>();
  // eslint-disable-next-line no-control-regex -- colours, should wrangler add them
  for (const line of output.replace(/\x1b\[[0-9;]*m/g, '').split('\n')) {
    const cells = line.split(/[│|]/).map((c) => c.trim());
    // id │ name │ …: a row has a hex id in its first cell.
    if (cells.length > 2 && /^[0-9a-f]{32}$/.test(cells[1] ?? '')) names.add(cells[2]!);
  }
  return names;
}

/**
 * wrangler.toml with the real ids: the D1 database's `database_id` and each KV binding's `id`
 * (`kvIds`: by binding).
 */
export function deployConfig(
  toml: string,
  { databaseId, kvIds }: { databaseId: string; kvIds: Readonly<Record<string, string>> },
): string {
  const header = '# Generated by `edgeplan deploy` from wrangler.toml (real resource ids). Do not edit.\n';
  return (
    header +
    toml
      .split(/^(?=\[)/m)
      .map((part) => {
        if (part.startsWith('[[d1_databases]]'))
          return part.replace(/^database_id\s*=\s*"[^"]*"/m, `database_id = "${databaseId}"`);
        const binding = part.startsWith('[[kv_namespaces]]') ? field(part, 'binding') : undefined;
        const namespaceId = binding === undefined ? undefined : kvIds[binding];
        if (namespaceId !== undefined) return part.replace(/^id\s*=\s*"[^"]*"/m, `id = "${namespaceId}"`);
        return part;
      })
      .join('')
  );
}
